/** SQL of password reset tokens (table `password_reset_tokens`). */
import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../platform/db/open.js';

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
    ON CONFLICT (user_id) DO UPDATE
      SET token_hash = EXCLUDED.token_hash, expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at`);
}

/** A stored reset token. */
export interface ResetToken {
  /** Whose token it is. */
  userId: string;
  /** Whether it has not yet expired (on the database clock). */
  live: boolean;
}

/**
 * The reset token with this hash, used or not.
 * @param tokenHash - SHA-256 of the token.
 * @returns the token, or null when no such token is stored (never issued, used, or replaced).
 */
export async function findResetToken(db: Executor, tokenHash: Buffer): Promise<ResetToken | null> {
  const result = await db.execute(sql`
    SELECT user_id AS "userId", expires_at > now() AS live FROM password_reset_tokens WHERE token_hash = ${tokenHash}`);
  return rowsOf<ResetToken>(result)[0] ?? null;
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

/** Deletes the user's reset token, if any (account deletion). */
export async function deleteResetToken(tx: Executor, userId: string): Promise<void> {
  await tx.execute(sql`DELETE FROM password_reset_tokens WHERE user_id = ${userId}`);
}
