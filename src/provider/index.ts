/**
 * The public entry of the provider context: what the other contexts may use of it (docs/development.md "Bounded
 * contexts"). Each name is documented where it is defined.
 */
export { WalletInteractions } from './openid/interaction.js';
export { purgeExpiredProviderState } from './openid/lapsed.js';
export { OrgProviders } from './openid/provider.js';
export { providerRoutes } from './openid/routes.js';
export { RelyingPartyRegistry } from './relying-parties/clients.js';
export { type OidcClientImport, oidcClientImport } from './relying-parties/import.js';
export { oidcClientRoutes } from './relying-parties/routes.js';
export { CreateBody } from './relying-parties/schemas.js';
export { type ClientView, OidcClientService } from './relying-parties/service.js';
export { DASHBOARD_WALLET_RETURN_PATH, DashboardWalletSignIn } from './wallet/dashboard.js';
export { eraseWalletIdentities } from './wallet/erasure.js';
export { ExportedWalletIdentity, exportWalletIdentities } from './wallet/export.js';
export { purgeWalletTransactions, WalletFlow } from './wallet/flow.js';
export { type WalletSettingsImport, walletSettingsImport } from './wallet/import.js';
export { parseCertificates } from './wallet/pem.js';
export { qrSvg } from './wallet/qr.js';
export { walletRoutes } from './wallet/routes.js';
export { WalletSettingsService, type WalletSettingsView } from './wallet/settings.js';
export { walletSettingsRoutes } from './wallet/settings-routes.js';
export {
  DEFAULT_CLAIM_MAPPING,
  DEFAULT_DCQL_QUERY,
  MAX_ANCHORS,
  type WalletSettingsInput,
} from './wallet/settings-rules.js';
export { WalletFlowError, WalletNotConfiguredError, type WalletOutcome, type WalletSignIn } from './wallet/sign-in.js';
