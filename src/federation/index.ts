/**
 * The public entry of the federation context: what the other contexts may use of it (docs/development.md "Bounded
 * contexts"). Each name is documented where it is defined.
 */
export { Broker } from './broker.js';
export { IdpInput } from './config.js';
export { eraseFederatedIdentities } from './erasure.js';
export { Exchange } from './exchange.js';
export { ExportedFederatedIdentity, exportFederatedIdentities } from './export.js';
export { FederatedLogout } from './logout.js';
export { type RedirectUriImport, redirectUriImport, redirectUriProblem } from './redirect-uris.js';
export { type FederationServices, federationRoutes } from './routes.js';
export { SamlBroker } from './saml/broker.js';
export { SamlLogout } from './saml/logout.js';
export { type SamlServices, samlRoutes } from './saml/routes.js';
export { SamlConfigService } from './saml/service.js';
export { activateSpKeys, SpKeys, stageSpKeys } from './saml/sp-keys.js';
export { SamlMetadataService } from './saml/sp-metadata.js';
export { RedirectUris } from './schemas.js';
export { FederationConfigService } from './service.js';
export { WebOrigins } from './web-origins.js';
export { BINDING_TTL_SECONDS, DASHBOARD_IDP_CALLBACK_PATH, FederatedWebSignIn } from './web-sign-in.js';
