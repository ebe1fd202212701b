/**
 * The OpenID provider of each organisation (docs/api.md "Authorization endpoint"; docs/wallet.md): its registered relying
 * parties (OIDC clients). A confidential client's secret is stored only as its SHA-256 hash
 * (docs/decisions/0016-oidc-relying-parties.md).
 */
import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { bytea, tz } from './columns.js';
import { organisations } from './core.js';

/**
 * A relying party registered at an organisation's OpenID provider, keyed by (organisation,
 * `client_id`). Redirect URIs are exact strings (RFC 9700 §4.1.3). A public client has no secret
 * (PKCE S256 instead, RFC 7636); a confidential one has the SHA-256 of its generated secret.
 */
export const oidcClients = pgTable(
  'oidc_clients',
  {
    // Deleting an organisation deletes its relying parties with it.
    orgId: uuid('org_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    name: text('name').notNull(),
    redirectUris: text('redirect_uris').array().notNull(),
    postLogoutRedirectUris: text('post_logout_redirect_uris').array().notNull().default(sql`'{}'::text[]`),
    public: boolean('public').notNull(),
    /** SHA-256 of the confidential client's secret (32 bytes); null for a public client. */
    secretHash: bytea('secret_hash'),
    createdAt: tz('created_at').notNull().defaultNow(),
    updatedAt: tz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.clientId] }),
    check('oidc_clients_redirect_uris_count', sql`cardinality(${t.redirectUris}) BETWEEN 1 AND 50`),
    check('oidc_clients_post_logout_count', sql`cardinality(${t.postLogoutRedirectUris}) <= 50`),
    check('oidc_clients_secret_iff_confidential', sql`(${t.public}) = (${t.secretHash} IS NULL)`),
  ],
);

/**
 * What each organisation's OpenID provider (oidc-provider, docs/decisions/0017-wallet-sign-in-provider.md)
 * keeps between requests: interactions, sessions, grants, authorization codes, access tokens…, one
 * row per (organisation, model, id), so that every serving process answers the same flow. `payload`
 * is the library's own JSON; `expires_at` is when the row stops being returned (the purge then
 * deletes it); `consumed_at` marks a used authorization code (RFC 6749 §4.1.2: single use).
 */
export const oidcProviderRecords = pgTable(
  'oidc_provider_records',
  {
    // Deleting an organisation deletes its provider's state with it.
    orgId: uuid('org_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    /** oidc-provider's model name, e.g. `Session`, `Interaction`, `AuthorizationCode`. */
    model: text('model').notNull(),
    id: text('id').notNull(),
    payload: jsonb('payload').notNull(),
    /** The grant a code or token belongs to: revoking the grant revokes them all. */
    grantId: text('grant_id'),
    /** A session's `uid`. */
    uid: text('uid'),
    /** A device-flow user code (the flow is off; kept for the adapter's contract). */
    userCode: text('user_code'),
    expiresAt: tz('expires_at').notNull(),
    consumedAt: tz('consumed_at'),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.model, t.id] }),
    index('oidc_provider_records_grant').on(t.orgId, t.grantId),
    index('oidc_provider_records_uid').on(t.orgId, t.model, t.uid),
    index('oidc_provider_records_expires').on(t.expiresAt),
  ],
);
