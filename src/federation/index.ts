/**
 * The public entry of the federation context: what the other contexts may use of it (docs/development.md "Bounded
 * contexts"). Each name is documented where it is defined.
 */
export { Broker } from './openid/broker.js';
export { IdpInput } from './openid/config.js';
export { eraseFederatedIdentities } from './openid/erasure.js';
export { Exchange } from './openid/exchange.js';
export { ExportedFederatedIdentity, exportFederatedIdentities } from './openid/export.js';
export { FederatedLogout } from './openid/logout.js';
export { type RedirectUriImport, redirectUriImport, redirectUriProblem } from './openid/redirect-uris.js';
export { type FederationServices, federationRoutes } from './openid/routes.js';
export { RedirectUris } from './openid/schemas.js';
export { FederationConfigService } from './openid/service.js';
export { WebOrigins } from './openid/web-origins.js';
export { BINDING_TTL_SECONDS, DASHBOARD_IDP_CALLBACK_PATH, FederatedWebSignIn } from './openid/web-sign-in.js';
export { SamlBroker } from './saml/broker.js';
export { SamlLogout } from './saml/logout.js';
export { type SamlServices, samlRoutes } from './saml/routes.js';
export { SamlConfigService } from './saml/service.js';
export { activateSpKeys, SpKeys, stageSpKeys } from './saml/sp-keys.js';
export { SamlMetadataService } from './saml/sp-metadata.js';
