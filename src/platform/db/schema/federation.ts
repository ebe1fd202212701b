/**
 * Federation with each organisation's external OpenID Connect provider (the External IdP configuration of docs/api.md "Resources"
 * and the IdP operations of docs/api.md "Identity management"; docs/decisions/0013-federation-broker.md). Secrets are sealed under the master key; codes and states are stored only as SHA-256 hashes.
 */
import { boolean, index, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { bytea, tz } from './columns.js';
import { organisations, tokenFamilies, users } from './core.js';

/** An organisation's one IdP configuration; the client secret is sealed (purpose `idp-client-secret`). */
export const idpConfigs = pgTable('idp_configs', {
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organisations.id),
  authorizationUrl: text('authorization_url').notNull(),
  tokenUrl: text('token_url').notNull(),
  logoutUrl: text('logout_url').notNull(),
  clientId: text('client_id').notNull(),
  clientSecretSealed: text('client_secret_sealed').notNull(),
  jwksUrl: text('jwks_url').notNull(),
  userInfoUrl: text('user_info_url').notNull(),
  validateSignature: boolean('validate_signature').notNull().default(true),
  disableUserInfo: boolean('disable_user_info').notNull().default(false),
  issuer: text('issuer').notNull(),
  defaultScope: text('default_scope').notNull(),
  createdAt: tz('created_at').notNull().defaultNow(),
  updatedAt: tz('updated_at').notNull().defaultNow(),
});

/** The app redirect URIs an organisation registered: sign-in results go only to these (RFC 9700 §4.1). */
export const appRedirectUris = pgTable(
  'app_redirect_uris',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organisations.id),
    uri: text('uri').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.uri] })],
);

/**
 * A sign-in in progress, from the authorize redirect to the callback: keyed by SHA-256 of `state`;
 * the nonce and PKCE verifier are sealed (purpose `idp-pending`). Single use, short-lived.
 */
export const federationStates = pgTable(
  'federation_states',
  {
    stateHash: bytea('state_hash').primaryKey(),
    orgId: uuid('org_id').notNull(),
    /** `{nonce, verifier}` sealed. */
    secretsSealed: text('secrets_sealed').notNull(),
    appRedirectUri: text('app_redirect_uri').notNull(),
    appState: text('app_state'),
    expiresAt: tz('expires_at').notNull(),
  },
  (t) => [index('federation_states_expires').on(t.expiresAt)],
);

/** Single-use Assent codes handed to the app (≤ 60 s), keyed by SHA-256 of the code. */
export const federationCodes = pgTable(
  'federation_codes',
  {
    codeHash: bytea('code_hash').primaryKey(),
    orgId: uuid('org_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    appRedirectUri: text('app_redirect_uri').notNull(),
    /** The provider's ID token, sealed (purpose `idp-id-token`), moved to the session on exchange. */
    idTokenSealed: text('id_token_sealed'),
    expiresAt: tz('expires_at').notNull(),
  },
  (t) => [index('federation_codes_expires').on(t.expiresAt)],
);

/** Local users linked to a provider's subject: by (organisation, issuer, `sub`), never by e-mail (OIDC Core §5.7). */
export const federatedIdentities = pgTable(
  'federated_identities',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organisations.id),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    createdAt: tz('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.issuer, t.subject] }), index('federated_identities_user').on(t.userId)],
);

/** The provider's ID token of one Assent session (token family), sealed; deleted at logout. */
export const federationSessions = pgTable(
  'federation_sessions',
  {
    // Deleting a session (account deletion) deletes its ID token with it.
    familyId: uuid('family_id')
      .primaryKey()
      .references(() => tokenFamilies.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id').notNull(),
    /** The session's user: an IdP's LogoutRequest names a subject, whose sessions are found by it. */
    userId: uuid('user_id'),
    idTokenSealed: text('id_token_sealed').notNull(),
    createdAt: tz('created_at').notNull().defaultNow(),
  },
  (t) => [index('federation_sessions_user').on(t.orgId, t.userId)],
);
