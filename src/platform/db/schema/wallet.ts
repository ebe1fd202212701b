/**
 * Wallet sign-in (docs/api.md "Authorization endpoint"; docs/wallet.md "Wallet settings", "The verifier", "Verification
 * steps"): each organisation's verifier settings, the OpenID4VP transactions (a TTL table) and the
 * individuals linked to a credential. Private keys are kept sealed under the master key (ASVS 5.0
 * V11.2, V13.3).
 */
import { boolean, index, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { bytea, tz } from './columns.js';
import { organisations, users } from './core.js';

/** An organisation's verifier settings (docs/wallet.md "Wallet settings"). */
export const walletSettings = pgTable('wallet_settings', {
  // Deleting an organisation deletes its settings with it.
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organisations.id, { onDelete: 'cascade' }),
  /** `haip` or `compat`. */
  profile: text('profile').notNull(),
  /** PEM certificates, leaf first. */
  verifierCertificateChain: text('verifier_certificate_chain').array().notNull(),
  /** The verifier's PKCS#8 PEM private key, sealed (purpose `wallet-verifier-key`). */
  verifierKeySealed: text('verifier_key_sealed').notNull(),
  /** PEM trust anchors for credential and status-list issuers. */
  trustedIssuerCertificates: text('trusted_issuer_certificates').array().notNull(),
  dcqlQuery: jsonb('dcql_query').notNull(),
  claimMapping: jsonb('claim_mapping').notNull(),
  stableClaim: text('stable_claim').notNull(),
  sameDeviceOnly: boolean('same_device_only').notNull(),
  deepLinkScheme: text('deep_link_scheme').notNull(),
  responseEncryption: text('response_encryption').array().notNull(),
  createdAt: tz('created_at').notNull().defaultNow(),
  updatedAt: tz('updated_at').notNull().defaultNow(),
});

/**
 * One OpenID4VP transaction (docs/wallet.md "The verifier"): at most 300 s, single use of its
 * request and of its response; `requestId` (in the request_uri) ≠ `id` (OpenID4VP §13.3, §14.3).
 */
export const walletTransactions = pgTable(
  'wallet_transactions',
  {
    id: uuid('id').primaryKey(),
    requestId: text('request_id').notNull().unique(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    interactionUid: text('interaction_uid').notNull(),
    clientId: text('client_id').notNull(),
    /** The OpenID4VP request's parameters (client_id, nonce, state, dcql_query, client_metadata…). */
    requestPayload: jsonb('request_payload').notNull(),
    /** The signed request object served once at the request_uri; null for a request by value. */
    requestJwt: text('request_jwt'),
    vpState: text('vp_state').notNull().unique(),
    /** `kid` of the ephemeral ECDH-ES key (`direct_post.jwt`), and the private JWK sealed. */
    encKid: text('enc_kid').unique(),
    encKeySealed: text('enc_key_sealed'),
    /** The settings the transaction was started under (no key). */
    settings: jsonb('settings').notNull(),
    /** created → request_fetched → verified | failed → consumed. */
    status: text('status').notNull(),
    /** SHA-256 of the same-device `response_code`. */
    responseCodeHash: bytea('response_code_hash'),
    /** `{userId, verifiedAt}` when verified; `{error}` when failed. */
    result: jsonb('result'),
    /**
     * Where the wallet's same-device redirect returns, `response_code` appended (OpenID4VP 1.0
     * §8.2): the privacy dashboard's return page for its own sign-ins; null for the provider's
     * `…/interaction/{uid}/wallet-return` (docs/web.md "Sign-in").
     */
    returnUri: text('return_uri'),
    createdAt: tz('created_at').notNull().defaultNow(),
    expiresAt: tz('expires_at').notNull(),
  },
  (t) => [
    index('wallet_transactions_interaction').on(t.orgId, t.interactionUid),
    index('wallet_transactions_expires').on(t.expiresAt),
  ],
);

/**
 * An individual linked to a credential: by (organisation, credential issuer, `vct`, the stable
 * claim's value) (OpenID4VP §14.4), with the mapped claims of the latest sign-in.
 */
export const walletIdentities = pgTable(
  'wallet_identities',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    vct: text('vct').notNull(),
    /** SHA-256 (hex) of the stable claim's value. */
    subject: text('subject').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    claims: jsonb('claims').notNull(),
    createdAt: tz('created_at').notNull().defaultNow(),
    updatedAt: tz('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.issuer, t.vct, t.subject] }), index('wallet_identities_user').on(t.userId)],
);
