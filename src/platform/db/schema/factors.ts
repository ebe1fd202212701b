/**
 * Second factors (docs/security.md "Second factors"): a user's TOTP authenticator (RFC 6238), their recovery codes,
 * and the pending second step of a password login (`mfa_token`).
 */
import { bigint, boolean, index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { bytea, tz } from './columns.js';
import { users } from './core.js';

/**
 * A user's TOTP authenticator: at most one. Its secret is sealed under the master key; until `confirmed_at` the
 * enrolment is pending and the factor is not asked for. `last_step` is the RFC 6238 time step of the last code
 * accepted: a code of that step or an earlier one is refused (RFC 6238 §5.2, one use per step).
 */
export const totpFactors = pgTable('totp_factors', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id),
  /** The base32 secret, sealed (src/platform/crypto/master-key.ts). */
  secretSealed: text('secret_sealed').notNull(),
  createdAt: tz('created_at').notNull().defaultNow(),
  confirmedAt: tz('confirmed_at'),
  lastStep: bigint('last_step', { mode: 'number' }).notNull().default(0),
});

/** A user's recovery codes: each stored as its SHA-256 only, single use (`used_at`). */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    codeHash: bytea('code_hash').notNull(),
    createdAt: tz('created_at').notNull().defaultNow(),
    usedAt: tz('used_at'),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeHash] })],
);

/**
 * The pending second step of a password login (`mfa_token`): the password was right and the user has a second
 * factor. Stored as the token's SHA-256; single use, short-lived, and void after `MAX_ATTEMPTS` wrong codes.
 */
export const mfaChallenges = pgTable(
  'mfa_challenges',
  {
    tokenHash: bytea('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    /** The client the session will belong to. */
    clientId: text('client_id').notNull(),
    /** The login that asked: `login` (`/v1.1/users/login`), `token` (`/users/login`), `admin` (`/users/admin/login`). */
    login: text('login').notNull(),
    /** Whether the web sign-in asked (the answer is a browser session, not tokens). */
    web: boolean('web').notNull().default(false),
    attempts: integer('attempts').notNull().default(0),
    createdAt: tz('created_at').notNull().defaultNow(),
    expiresAt: tz('expires_at').notNull(),
    usedAt: tz('used_at'),
  },
  (t) => [index('mfa_challenges_user').on(t.userId)],
);

/**
 * A person's passkeys (WebAuthn Level 3 public key credentials): each signs in alone (discoverable) or serves as the
 * second factor. The credential ID and public key are what the authenticator registered; `counter` its signature
 * counter (0 for the many that keep none).
 */
export const passkeys = pgTable(
  'passkeys',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    /** The credential ID, base64url. */
    credentialId: text('credential_id').notNull().unique(),
    /** The COSE public key. */
    publicKey: bytea('public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    /** The transports the authenticator said it uses (`internal`, `usb`, `hybrid`, …). */
    transports: text('transports').array().notNull().default([]),
    /** `singleDevice` or `multiDevice` (a synced passkey). */
    deviceType: text('device_type').notNull(),
    backedUp: boolean('backed_up').notNull(),
    /** The person's name for it (at most 100 characters). */
    name: text('name').notNull(),
    createdAt: tz('created_at').notNull().defaultNow(),
    lastUsedAt: tz('last_used_at'),
  },
  (t) => [index('passkeys_user').on(t.userId)],
);

/**
 * A pending WebAuthn ceremony: the challenge Assent issued, single use and short-lived. A registration names its
 * person; a passkey sign-in does not (the passkey names them).
 */
export const webauthnChallenges = pgTable(
  'webauthn_challenges',
  {
    id: uuid('id').primaryKey(),
    /** base64url, as the authenticator's clientDataJSON carries it. */
    challenge: text('challenge').notNull(),
    /** `register` or `authenticate`. */
    purpose: text('purpose').notNull(),
    userId: uuid('user_id').references(() => users.id),
    expiresAt: tz('expires_at').notNull(),
    usedAt: tz('used_at'),
  },
  (t) => [index('webauthn_challenges_challenge').on(t.challenge)],
);
