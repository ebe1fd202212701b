/**
 * User management (SPEC 4.4; issue #4): profile images, password-reset tokens and the generic
 * fixed-window rate limits of unauthenticated or bulk operations.
 */
import { index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { bytea, tz } from './columns.js';
import { users } from './schema.js';

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
 * `anon:<orgID>`); `count` events since `windowStart`.
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  windowStart: tz('window_start').notNull(),
  count: integer('count').notNull(),
});
