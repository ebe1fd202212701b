/**
 * SAML 2.0 federation with each organisation's IdP (docs/federation.md "SAML 2.0";
 * docs/decisions/0022-saml-federation.md). Sign-ins reuse the broker's tables of
 * `federation.ts` (pending states, codes, links, sessions); these hold what SAML adds.
 */
import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tz } from './columns.js';
import { organisations } from './core.js';

/** An organisation's one SAML IdP: no secret (the IdP's certificates are public). */
export const samlConfigs = pgTable('saml_configs', {
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organisations.id),
  /** Where the metadata was fetched from, or "" when it was sent inline or the fields were given. */
  metadataUrl: text('metadata_url').notNull(),
  entityId: text('entity_id').notNull(),
  ssoUrl: text('sso_url').notNull(),
  /** The IdP's SingleLogoutService (HTTP-Redirect), or "" for none. */
  sloUrl: text('slo_url').notNull(),
  /** PEM certificates whose keys may sign responses and assertions. */
  signingCertificates: jsonb('signing_certificates').$type<string[]>().notNull(),
  nameIdFormat: text('name_id_format').notNull(),
  /** Attribute names: `{ email, name, phone }`. */
  attributeMapping: jsonb('attribute_mapping').$type<{ email: string; name: string; phone: string }>().notNull(),
  signAuthnRequests: boolean('sign_authn_requests').notNull().default(true),
  /** Whether IdP-initiated (unsolicited) responses are accepted. */
  allowUnsolicited: boolean('allow_unsolicited').notNull().default(false),
  createdAt: tz('created_at').notNull().defaultNow(),
  updatedAt: tz('updated_at').notNull().defaultNow(),
});

/**
 * Assent's SP key pairs (RSA 2048, self-signed certificate; docs/federation.md "SAML 2.0", "SP keys"),
 * one ring per use: `signing` (AuthnRequests, LogoutRequests) and `encryption` (assertions encrypted
 * to Assent). A key is staged (`activated_at` null: published in the SP metadata, not used to sign),
 * then active (at most one per use), then retired (`retired_at`: still published, and still
 * accepted for decryption, for an overlap). The private key is sealed under the master key (purpose
 * `saml-sp-key`).
 */
export const samlSpKeyPairs = pgTable(
  'saml_sp_key_pairs',
  {
    id: uuid('id').primaryKey(),
    /** `signing` or `encryption` (the KeyDescriptor's `use`, SAML 2.0 Metadata §2.4.1.1). */
    use: text('use').$type<'signing' | 'encryption'>().notNull(),
    certificate: text('certificate').notNull(),
    privateKeySealed: text('private_key_sealed').notNull(),
    createdAt: tz('created_at').notNull().defaultNow(),
    /** When it started signing (or became the first encryption key); null while staged. */
    activatedAt: tz('activated_at'),
    /** When a newer key took over; null while staged or active. */
    retiredAt: tz('retired_at'),
  },
  (t) => [
    // Replicas that make the first key, or stage one, at once: one wins, the others read it.
    uniqueIndex('saml_sp_key_pairs_staged').on(t.use).where(sql`activated_at IS NULL`),
    uniqueIndex('saml_sp_key_pairs_active').on(t.use).where(sql`activated_at IS NOT NULL AND retired_at IS NULL`),
  ],
);

/**
 * The IDs of AuthnRequests and LogoutRequests Assent sent (shared by every replica), with their kind
 * (`authn` or `logout`): a Response answers only an AuthnRequest, a LogoutResponse only a LogoutRequest.
 */
export const samlRequests = pgTable(
  'saml_requests',
  {
    requestId: text('request_id').primaryKey(),
    kind: text('kind').notNull().default('authn'),
    expiresAt: tz('expires_at').notNull(),
  },
  (t) => [index('saml_requests_expires').on(t.expiresAt)],
);

/** Assertion IDs accepted, kept until the assertion expires: each is accepted once (replay). */
export const samlAssertions = pgTable(
  'saml_assertions',
  {
    orgId: uuid('org_id').notNull(),
    assertionId: text('assertion_id').notNull(),
    expiresAt: tz('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.assertionId] }), index('saml_assertions_expires').on(t.expiresAt)],
);
