/** SQL of second factors: TOTP authenticators, recovery codes and pending second steps (migration 0033). */
import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../platform/db/open.js';

/** A user's TOTP authenticator as stored. */
export interface TotpRow {
  secretSealed: string;
  confirmedAt: Date | null;
  lastStep: number;
}

/** The user's TOTP authenticator, confirmed or pending, or null. */
export async function totpOf(db: Executor, userId: string): Promise<TotpRow | null> {
  const [row] = rowsOf<{ secret_sealed: string; confirmed_at: string | Date | null; last_step: string | number }>(
    await db.execute(sql`SELECT secret_sealed, confirmed_at, last_step FROM totp_factors WHERE user_id = ${userId}`),
  );
  if (!row) return null;
  return {
    secretSealed: row.secret_sealed,
    confirmedAt: row.confirmed_at === null ? null : new Date(row.confirmed_at),
    lastStep: Number(row.last_step),
  };
}

/** Starts an enrolment: a pending authenticator replaces a pending one; a confirmed one is kept (returns false). */
export async function putPendingTotp(db: Executor, userId: string, secretSealed: string): Promise<boolean> {
  const rows = rowsOf(
    await db.execute(sql`INSERT INTO totp_factors (user_id, secret_sealed) VALUES (${userId}, ${secretSealed})
      ON CONFLICT (user_id) DO UPDATE SET secret_sealed = EXCLUDED.secret_sealed, created_at = now(), last_step = 0
      WHERE totp_factors.confirmed_at IS NULL
      RETURNING user_id`),
  );
  return rows.length > 0;
}

/**
 * Records a code of time step `step` as used, when no code of that step or a later one was (RFC 6238 §5.2): of two
 * requests with one code, only one updates the row. Confirms a pending authenticator with it.
 * @returns whether the step was still unused.
 */
export async function spendStep(db: Executor, userId: string, step: number): Promise<boolean> {
  const rows = rowsOf(
    await db.execute(sql`UPDATE totp_factors SET last_step = ${step}, confirmed_at = coalesce(confirmed_at, now())
      WHERE user_id = ${userId} AND last_step < ${step} RETURNING user_id`),
  );
  return rows.length > 0;
}

/** Removes the user's authenticator. @returns whether there was a confirmed one. */
export async function deleteTotp(db: Executor, userId: string): Promise<boolean> {
  const rows = rowsOf<{ confirmed_at: unknown }>(
    await db.execute(sql`DELETE FROM totp_factors WHERE user_id = ${userId} RETURNING confirmed_at`),
  );
  return rows.some((r) => r.confirmed_at !== null);
}

/** Replaces the user's recovery codes with these hashes (SHA-256 of each normalised code). */
export async function replaceRecoveryCodes(tx: Executor, userId: string, hashes: Buffer[]): Promise<void> {
  await tx.execute(sql`DELETE FROM recovery_codes WHERE user_id = ${userId}`);
  for (const hash of hashes)
    await tx.execute(sql`INSERT INTO recovery_codes (user_id, code_hash) VALUES (${userId}, ${hash})`);
}

/** Deletes the user's recovery codes. */
export async function deleteRecoveryCodes(tx: Executor, userId: string): Promise<void> {
  await tx.execute(sql`DELETE FROM recovery_codes WHERE user_id = ${userId}`);
}

/** How many unused recovery codes the user has (count). */
export async function recoveryCodesLeft(db: Executor, userId: string): Promise<number> {
  const [row] = rowsOf<{ n: string | number }>(
    await db.execute(sql`SELECT count(*) AS n FROM recovery_codes WHERE user_id = ${userId} AND used_at IS NULL`),
  );
  return Number(row!.n);
}

/** Spends an unused recovery code: of two requests with one code, one succeeds. @returns whether it was unused. */
export async function spendRecoveryCode(db: Executor, userId: string, hash: Buffer): Promise<boolean> {
  const rows = rowsOf(
    await db.execute(sql`UPDATE recovery_codes SET used_at = now()
      WHERE user_id = ${userId} AND code_hash = ${hash} AND used_at IS NULL RETURNING user_id`),
  );
  return rows.length > 0;
}

/** A pending second step. */
export interface ChallengeRow {
  userId: string;
  clientId: string;
  login: string;
  web: boolean;
  attempts: number;
  live: boolean;
}

/**
 * Stores a pending second step.
 * @param ttlSeconds - its lifetime (seconds, database clock).
 */
export async function insertChallenge(
  db: Executor,
  c: { tokenHash: Buffer; userId: string; clientId: string; login: string; web: boolean; ttlSeconds: number },
): Promise<void> {
  await db.execute(sql`INSERT INTO mfa_challenges (token_hash, user_id, client_id, login, web, expires_at)
    VALUES (${c.tokenHash}, ${c.userId}, ${c.clientId}, ${c.login}, ${c.web},
      now() + make_interval(secs => ${c.ttlSeconds}))`);
}

/** The pending second step of a token hash, locked until the transaction ends, or null. */
export async function challenge(tx: Executor, tokenHash: Buffer): Promise<ChallengeRow | null> {
  const [row] = rowsOf<{
    user_id: string;
    client_id: string;
    login: string;
    web: boolean;
    attempts: number;
    live: boolean;
  }>(
    await tx.execute(sql`SELECT user_id, client_id, login, web, attempts,
        (used_at IS NULL AND expires_at > now()) AS live
      FROM mfa_challenges WHERE token_hash = ${tokenHash} FOR UPDATE`),
  );
  return row
    ? {
        userId: row.user_id,
        clientId: row.client_id,
        login: row.login,
        web: row.web,
        attempts: Number(row.attempts),
        live: row.live,
      }
    : null;
}

/** Counts a wrong code against a pending second step. */
export async function countAttempt(db: Executor, tokenHash: Buffer): Promise<void> {
  await db.execute(sql`UPDATE mfa_challenges SET attempts = attempts + 1 WHERE token_hash = ${tokenHash}`);
}

/** Spends a pending second step. */
export async function spendChallenge(db: Executor, tokenHash: Buffer): Promise<void> {
  await db.execute(sql`UPDATE mfa_challenges SET used_at = now() WHERE token_hash = ${tokenHash}`);
}

/** Deletes second steps that ended more than a day ago (the purge). @returns how many (count). */
export async function purgeChallenges(db: Executor): Promise<number> {
  return rowsOf(
    await db.execute(sql`DELETE FROM mfa_challenges WHERE expires_at < now() - interval '1 day' RETURNING user_id`),
  ).length;
}

/** Deletes every second factor (authenticator app, recovery codes, passkeys) and pending step of the user (account deletion). */
export async function deleteFactors(tx: Executor, userId: string): Promise<void> {
  await tx.execute(sql`DELETE FROM totp_factors WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM recovery_codes WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM mfa_challenges WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM passkeys WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM webauthn_challenges WHERE user_id = ${userId}`);
}

/** Whether the user has a second factor: a confirmed authenticator app, or a passkey. */
export async function hasSecondFactor(db: Executor, userId: string): Promise<boolean> {
  const [row] = rowsOf<{ yes: boolean }>(
    await db.execute(
      sql`SELECT (EXISTS (SELECT 1 FROM totp_factors WHERE user_id = ${userId} AND confirmed_at IS NOT NULL)
        OR EXISTS (SELECT 1 FROM passkeys WHERE user_id = ${userId})) AS yes`,
    ),
  );
  return row!.yes;
}

/** Marks the session (token family) as re-authenticated now. */
export async function markAuthenticated(db: Executor, familyId: string): Promise<void> {
  await db.execute(sql`UPDATE token_families SET authenticated_at = now() WHERE id = ${familyId}`);
}

/** Seconds since the session (token family) last authenticated, or null when there is no such live session. */
export async function secondsSinceAuthentication(db: Executor, familyId: string): Promise<number | null> {
  const [row] = rowsOf<{ s: string | number }>(
    await db.execute(sql`SELECT extract(epoch FROM now() - authenticated_at) AS s FROM token_families
      WHERE id = ${familyId} AND revoked_at IS NULL`),
  );
  return row ? Number(row.s) : null;
}
