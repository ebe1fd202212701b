/**
 * User management (docs/api.md "User management"; docs/identity.md): profile images, password-reset tokens, invitations to an
 * organisation, and the generic fixed-window rate limits of unauthenticated or bulk operations.
 */
import { index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { bytea, tz } from './columns.js';
import { organisations, users } from './core.js';

/**
 * A user's profile image, re-encoded as JPEG with all metadata stripped. The current one is
 * `users.image_id`; replaced images are deleted.
 */
export const userImages = pgTable(
  'user_images',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    /** JPEG bytes. */
    data: bytea('data').notNull(),
    /** Strong ETag: the SHA-256 of `data`, base64url. */
    etag: text('etag').notNull(),
    /** pixels */
    width: integer('width').notNull(),
    /** pixels */
    height: integer('height').notNull(),
    createdAt: tz('created_at').notNull().defaultNow(),
  },
  (t) => [index('user_images_user').on(t.userId)],
);

/**
 * The one live password-reset token of a user (a new request replaces it, which invalidates the
 * old). Only the SHA-256 of the token is stored; the token itself is only in the mail.
 */
export const passwordResetTokens = pgTable('password_reset_tokens', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id),
  tokenHash: bytea('token_hash').notNull().unique(),
  expiresAt: tz('expires_at').notNull(),
  createdAt: tz('created_at').notNull().defaultNow(),
});

/**
 * Fixed-window counters: `key` names what is limited (e.g. `forgot:u:<username>`,
 * `anon:<orgID>`); `count` events since `windowStart`. `expiresAt` is when the window ends
 * (`windowStart` plus the window its writer counts in, migration 0016): from then on the counter
 * decides nothing, the next event starts a new window, and the purge may delete it without knowing
 * whose it is. No index on it: the purge scans the table once per `ASSENT_PURGE_SECONDS`, as before.
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  windowStart: tz('window_start').notNull(),
  count: integer('count').notNull(),
  expiresAt: tz('expires_at').notNull(),
});

/**
 * An invitation to an e-mail address (docs/consents.md "Invitations"; docs/staff.md "Inviting staff"): to join an
 * organisation as an individual (the only way besides subscribing themselves for an existing user to join one), or,
 * when `roles` is not empty, to become its staff with those roles. Only the
 * SHA-256 of the token is stored; the token itself is only in the mail. Single use: accepted or
 * revoked, it is spent; past `expiresAt` it is refused. The user columns name who acted, without
 * a foreign key, so that deleting an account leaves the organisation's record of who joined.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid('id').primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organisations.id),
    /** The address the link was mailed to, as the staff typed it (trimmed). */
    email: text('email').notNull(),
    tokenHash: bytea('token_hash').notNull().unique(),
    createdBy: uuid('created_by').notNull(),
    createdAt: tz('created_at').notNull().defaultNow(),
    expiresAt: tz('expires_at').notNull(),
    acceptedAt: tz('accepted_at'),
    acceptedBy: uuid('accepted_by'),
    revokedAt: tz('revoked_at'),
    /** The admin roles a staff invitation grants (RoleIDs); empty for an individual's invitation. */
    roles: integer('roles').array().notNull().default([]),
  },
  (t) => [index('invitations_org').on(t.orgId, t.id)],
);
