/**
 * Tables of the web front ends (docs/web.md): the server-side sessions of the privacy dashboard and
 * the console. A browser holds only an opaque random cookie; the row holds who is signed in, the
 * identity session (token family) the web session rides on, and the CSRF token.
 */
import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { bytea, tz } from './columns.js';
import { tokenFamilies, users } from './core.js';

/**
 * One signed-in browser. `idHash` is the SHA-256 of the cookie's value, so that a reader of the
 * database holds no cookie to replay (ASVS 5.0 V7.2.3 hygiene, as for refresh tokens). Ends at
 * `expiresAt` (absolute) or when idle for longer than the idle timeout (`lastSeenAt`), at sign-out,
 * and when its token family is revoked (logout elsewhere, password change, account deletion).
 */
export const webSessions = pgTable(
  'web_sessions',
  {
    idHash: bytea('id_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    familyId: uuid('family_id')
      .notNull()
      .references(() => tokenFamilies.id, { onDelete: 'cascade' }),
    /** The synchronizer token that every state-changing request must carry (OWASP CSRF cheat sheet). */
    csrfToken: text('csrf_token').notNull(),
    createdAt: tz('created_at').notNull().defaultNow(),
    lastSeenAt: tz('last_seen_at').notNull().defaultNow(),
    expiresAt: tz('expires_at').notNull(),
  },
  (t) => [index('web_sessions_user').on(t.userId), index('web_sessions_expires').on(t.expiresAt)],
);
