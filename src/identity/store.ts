/** SQL of sessions: token families, refresh tokens and API keys. */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../db/open.js';
import { apiKeys, clients, refreshTokens, tokenFamilies } from '../db/schema.js';

/**
 * Consumes a refresh token and stores its successor in one statement, so that of two
 * concurrent rotations exactly one finds the row unconsumed (RFC 9700 §4.14.2).
 *
 * @returns the family ID when rotated; null when the token is unknown, consumed, expired or its family revoked.
 */
export async function rotateRefresh(db: Executor, oldHash: Buffer, newHash: Buffer, newExpiresAt: Date): Promise<string | null> {
  const result = await db.execute(sql`
    WITH consumed AS (
      UPDATE refresh_tokens r SET consumed_at = now()
      FROM token_families f
      WHERE r.jti_hash = ${oldHash} AND r.consumed_at IS NULL AND r.expires_at > now()
        AND f.id = r.family_id AND f.revoked_at IS NULL
      RETURNING r.family_id
    )
    INSERT INTO refresh_tokens (jti_hash, family_id, expires_at)
    SELECT ${newHash}, family_id, ${newExpiresAt.toISOString()}::timestamptz FROM consumed
    RETURNING family_id`);
  return rowsOf<{ family_id: string }>(result)[0]?.family_id ?? null;
}

/** The family of a refresh token that was already consumed, or null. */
export async function consumedFamily(db: Executor, jtiHash: Buffer): Promise<string | null> {
  const [row] = await db
    .select({ familyId: refreshTokens.familyId })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.jtiHash, jtiHash), sql`${refreshTokens.consumedAt} IS NOT NULL`));
  return row?.familyId ?? null;
}

/** Revokes a family; later access tokens and refresh tokens of it are refused. Idempotent. */
export async function revokeFamily(db: Executor, familyId: string, reason: string): Promise<void> {
  await db
    .update(tokenFamilies)
    .set({ revokedAt: sql`now()`, revokedReason: reason })
    .where(and(eq(tokenFamilies.id, familyId), isNull(tokenFamilies.revokedAt)));
}

/** One primary-key lookup: is the family live? */
export async function isFamilyLive(db: Executor, familyId: string): Promise<boolean> {
  const [row] = await db.select({ revokedAt: tokenFamilies.revokedAt }).from(tokenFamilies).where(eq(tokenFamilies.id, familyId));
  return row !== undefined && row.revokedAt === null;
}

/** Stores a new API key. */
export async function insertApiKey(db: Executor, row: { id: string; userId: string; tokenSealed: string; expiresAt: Date }) {
  await db.insert(apiKeys).values(row);
}

/** Revokes every live API key of a user; returns how many. */
export async function revokeApiKeys(db: Executor, userId: string): Promise<number> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length;
}

/** One primary-key lookup: is the API key live? */
export async function isApiKeyLive(db: Executor, id: string): Promise<boolean> {
  const [row] = await db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, id));
  return row !== undefined && row.revokedAt === null;
}

/** Whether `clientId` is a registered OAuth client. */
export async function clientExists(db: Executor, clientId: string): Promise<boolean> {
  const [row] = await db.select({ id: clients.id }).from(clients).where(eq(clients.clientId, clientId));
  return row !== undefined;
}

/**
 * The first registered client, or null. Clients registered by one import share `created_at`;
 * their UUIDv7 IDs, generated in declaration order, break the tie.
 */
export async function firstClientId(db: Executor): Promise<string | null> {
  const [row] = await db.select({ clientId: clients.clientId }).from(clients).orderBy(clients.createdAt, clients.id).limit(1);
  return row?.clientId ?? null;
}

/** What a login needs before checking the password, in one round trip. */
export interface LoginLookup {
  /** The user's ID, or null when the username is unknown. */
  userId: string | null;
  passwordHash: string | null;
  /** Latest block end among the attempt's throttle keys, or null when none is blocked. */
  blockedUntil: Date | null;
  /** Whether the account key has failures on record (so a success must clear them). */
  accountHasFailures: boolean;
}

/**
 * Looks up a user by lower-case username together with the throttle state of the attempt.
 * @param accountKey - `u:<username>`.
 * @param ipKey - `ip:<address>`.
 */
export async function loginLookup(db: Executor, username: string, accountKey: string, ipKey: string): Promise<LoginLookup> {
  const result = await db.execute(sql`
    SELECT u.id AS user_id, u.password_hash,
      (SELECT max(blocked_until) FROM login_throttle WHERE key IN (${accountKey}, ${ipKey}) AND blocked_until > now()) AS blocked_until,
      EXISTS (SELECT 1 FROM login_throttle WHERE key = ${accountKey}) AS account_has_failures
    FROM (SELECT 1) AS one LEFT JOIN users u ON u.username = ${username}`);
  const row = rowsOf<{ user_id: string | null; password_hash: string | null; blocked_until: string | Date | null; account_has_failures: boolean }>(result)[0];
  return {
    userId: row?.user_id ?? null,
    passwordHash: row?.password_hash ?? null,
    blockedUntil: row?.blocked_until ? new Date(row.blocked_until) : null,
    accountHasFailures: Boolean(row?.account_has_failures),
  };
}

/**
 * Opens a session in one statement: the token family, its first refresh token, and the user's
 * `LastVisit` set to now.
 * @returns the new `LastVisit`.
 */
export async function openSession(
  db: Executor,
  session: { familyId: string; userId: string; clientId: string; jtiHash: Buffer; expiresAt: Date },
): Promise<Date> {
  const result = await db.execute(sql`
    WITH family AS (
      INSERT INTO token_families (id, user_id, client_id) VALUES (${session.familyId}, ${session.userId}, ${session.clientId})
      RETURNING id
    ), refresh AS (
      INSERT INTO refresh_tokens (jti_hash, family_id, expires_at)
      SELECT ${session.jtiHash}, id, ${session.expiresAt.toISOString()}::timestamptz FROM family
    )
    UPDATE users SET last_visit_at = now() WHERE id = ${session.userId} RETURNING last_visit_at`);
  const row = rowsOf<{ last_visit_at: string | Date }>(result)[0];
  return row ? new Date(row.last_visit_at) : new Date();
}
