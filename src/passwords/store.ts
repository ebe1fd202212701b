/** SQL of password changes: reset tokens (table `password_reset_tokens`), the account, its sessions. */
import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../db/open.js';

/** What a password change needs to know about an account. */
export interface Account {
  id: string;
  /** Lower-case username. */
  username: string;
  /** E-mail address, or `''` when none. */
  email: string;
  /** PHC string, or null when the account has no password. */
  passwordHash: string | null;
}

/**
 * A live (not deleted) account by ID.
 * @returns the account, or null.
 */
export async function accountById(db: Executor, userId: string): Promise<Account | null> {
  const result = await db.execute(sql`
    SELECT id, username, email, password_hash AS "passwordHash" FROM users WHERE id = ${userId} AND deleted_at IS NULL`);
  return rowsOf<Account>(result)[0] ?? null;
}

/**
 * A live (not deleted) account by normalised username.
 * @returns the account, or null.
 */
export async function accountByUsername(db: Executor, username: string): Promise<Account | null> {
  const result = await db.execute(sql`
    SELECT id, username, email, password_hash AS "passwordHash" FROM users WHERE username = ${username} AND deleted_at IS NULL`);
  return rowsOf<Account>(result)[0] ?? null;
}

/**
 * Stores the user's one reset token, replacing (and so invalidating) any earlier one.
 * @param tokenHash - SHA-256 of the token (32 bytes).
 * @param ttlSeconds - lifetime (seconds), counted on the database clock.
 */
export async function replaceResetToken(
  db: Executor,
  userId: string,
  tokenHash: Buffer,
  ttlSeconds: number,
): Promise<void> {
  await db.execute(sql`
    INSERT INTO password_reset_tokens (user_id, token_hash, expires_at, created_at)
    VALUES (${userId}, ${tokenHash}, now() + make_interval(secs => ${ttlSeconds}), now())
    ON CONFLICT (user_id) DO UPDATE SET token_hash = EXCLUDED.token_hash, expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at`);
}

/** A stored reset token, with its account. */
export interface ResetToken {
  account: Account;
  /** Whether it has not yet expired (on the database clock). */
  live: boolean;
}

/**
 * The reset token with this hash, used or not, and its account (not deleted).
 * @param tokenHash - SHA-256 of the token.
 * @returns the token, or null when no such token is stored (never issued, used, or replaced).
 */
export async function findResetToken(db: Executor, tokenHash: Buffer): Promise<ResetToken | null> {
  const result = await db.execute(sql`
    SELECT u.id, u.username, u.email, u.password_hash AS "passwordHash", t.expires_at > now() AS live
    FROM password_reset_tokens t JOIN users u ON u.id = t.user_id
    WHERE t.token_hash = ${tokenHash} AND u.deleted_at IS NULL`);
  const row = rowsOf<Account & { live: boolean }>(result)[0];
  return row
    ? {
        account: { id: row.id, username: row.username, email: row.email, passwordHash: row.passwordHash },
        live: row.live,
      }
    : null;
}

/**
 * Consumes a live reset token: deletes it in one statement, so that of two concurrent uses exactly
 * one succeeds (single use, ASVS 5.0 V6.4.1).
 * @param tokenHash - SHA-256 of the token.
 * @returns the user's ID, or null when the token is unknown, used, replaced or expired.
 */
export async function consumeResetToken(db: Executor, tokenHash: Buffer): Promise<string | null> {
  const result = await db.execute(sql`
    DELETE FROM password_reset_tokens WHERE token_hash = ${tokenHash} AND expires_at > now() RETURNING user_id`);
  return rowsOf<{ user_id: string }>(result)[0]?.user_id ?? null;
}

/**
 * Revokes the user's live token families (sessions), but `keep` when given.
 * @param keep - the family to keep (the caller's own session), or null to revoke every one.
 * @param reason - stored in `revoked_reason`.
 * @returns how many families were revoked (count).
 */
export async function revokeSessions(
  db: Executor,
  userId: string,
  keep: string | null,
  reason: string,
): Promise<number> {
  const result = await db.execute(sql`
    UPDATE token_families SET revoked_at = now(), revoked_reason = ${reason}
    WHERE user_id = ${userId} AND revoked_at IS NULL AND (${keep}::uuid IS NULL OR id <> ${keep}::uuid)
    RETURNING id`);
  return rowsOf<{ id: string }>(result).length;
}

/**
 * The latest end of a login block among `keys` (table `login_throttle`), or null when none is blocked.
 * @param keys - throttle keys, e.g. `u:<username>` and `ip:<address>`.
 */
export async function blockedUntil(db: Executor, keys: string[]): Promise<Date | null> {
  const result = await db.execute(sql`
    SELECT max(blocked_until) AS until FROM login_throttle
    WHERE key IN (${sql.join(
      keys.map((k) => sql`${k}`),
      sql`, `,
    )}) AND blocked_until > now()`);
  const until = rowsOf<{ until: string | Date | null }>(result)[0]?.until;
  return until ? new Date(until) : null;
}
