/**
 * SQL of account deletion (GDPR Art. 17; docs/decisions/0012-account-deletion.md "Account deletion"). The user row
 * stays as a tombstone keyed by the user's random ID, which the consent history keeps as a pseudonym; every piece
 * of personal data and every credential is removed.
 */
import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../db/open.js';

/**
 * Scrubs the user: name, e-mail, phone, username (replaced by `deleted:<ID>`), password hash,
 * device token and image reference; marks it deleted.
 * @returns the old username (to clear its throttle state), or null when there is no live user of that ID.
 */
export async function scrubUser(tx: Executor, userId: string): Promise<string | null> {
  const result = await tx.execute(sql`
    UPDATE users u SET username = 'deleted:' || u.id::text, name = '', email = '', phone = '', password_hash = NULL,
      client_token = '', client_type = 0, image_id = '', anonymous = false, deleted_at = now(), updated_at = now()
    FROM (SELECT id, username FROM users WHERE id = ${userId} AND deleted_at IS NULL FOR UPDATE) old
    WHERE u.id = old.id RETURNING old.username`);
  return rowsOf<{ username: string }>(result)[0]?.username ?? null;
}

/**
 * Deletes what hangs off the user: images, the reset token, federated-identity links and pending
 * federation codes, sessions (refresh tokens and their families, so every access token of them is
 * refused at once; their sealed ID tokens go with them by cascade), API keys, admin roles and
 * subscriptions. Consent records, their current values and the consent history stay: they name the
 * individual only by the ID.
 */
export async function deleteUserData(tx: Executor, userId: string, oldUsername: string): Promise<void> {
  await tx.execute(sql`DELETE FROM user_images WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM password_reset_tokens WHERE user_id = ${userId}`);
  // The links to external identities (issuer, sub) identify the person; a later federated sign-in starts afresh.
  await tx.execute(sql`DELETE FROM federated_identities WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM federation_codes WHERE user_id = ${userId}`);
  await tx.execute(
    sql`DELETE FROM refresh_tokens WHERE family_id IN (SELECT id FROM token_families WHERE user_id = ${userId})`,
  );
  await tx.execute(sql`DELETE FROM token_families WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM api_keys WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM user_roles WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM subscriptions WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM login_throttle WHERE key = ${`u:${oldUsername}`}`);
}
