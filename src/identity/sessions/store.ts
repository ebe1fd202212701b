/** SQL of sessions: token families, refresh tokens and API keys. */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { arrayLiteral } from '../../platform/db/arrays.js';
import { type Db, type Executor, perDb, prepareRaw, rowsOf, statementHandle } from '../../platform/db/open.js';
import { apiKeys, clients, refreshTokens, tokenFamilies, users } from '../../platform/db/schema/index.js';
import { profileColumns, toProfile, type UserProfile } from '../users/profile.js';

/** One refresh-token rotation of `rotateRefreshMany`. */
export interface Rotation {
  /** SHA-256 of the presented token's `jti`. */
  oldHash: Buffer;
  /** SHA-256 of its successor's `jti`. */
  newHash: Buffer;
  /** When the successor expires. */
  newExpiresAt: Date;
  /** The answer of this rotation (`successor.ts`), sealed, kept for the reuse grace period; null when there is none. */
  successorSealed: string | null;
}

/**
 * Consumes refresh tokens and stores their successors in one statement, hence one commit (also
 * the group commit of `IdentityService`): of two rotations of one token, here or in another
 * statement, exactly one finds it unconsumed (RFC 9700 §4.14.2). The tokens must differ; a token
 * given twice rotates at most once. Each consumed token keeps its sealed answer until
 * `graceSeconds` from now; rotating a successor clears its predecessor's (the successor is used,
 * so the grace period is over).
 * @param rotations - at least one.
 * @param graceSeconds - `ASSENT_REFRESH_REUSE_GRACE_SECONDS` (seconds).
 * @returns per rotation, in order: the family ID when rotated; null when the token is unknown,
 *   consumed, expired or its family revoked.
 * @throws the database error when the statement fails; then nothing was rotated.
 */
export async function rotateRefreshMany(
  db: Executor,
  rotations: Rotation[],
  graceSeconds: number,
): Promise<Array<string | null>> {
  const hex = (hashes: Buffer[]) => arrayLiteral(hashes.map((h) => h.toString('hex')));
  const result = await db.execute(sql`
    WITH k AS (
      SELECT decode(old_hex, 'hex') AS old_hash, decode(new_hex, 'hex') AS new_hash, expires_at, sealed, i
      FROM unnest(${hex(rotations.map((r) => r.oldHash))}::text[], ${hex(rotations.map((r) => r.newHash))}::text[],
        ${arrayLiteral(rotations.map((r) => r.newExpiresAt.toISOString()))}::timestamptz[],
        ${arrayLiteral(rotations.map((r) => r.successorSealed))}::text[])
        WITH ORDINALITY AS k(old_hex, new_hex, expires_at, sealed, i)
    ), consumed AS (
      UPDATE refresh_tokens r SET consumed_at = now(), successor_sealed = k.sealed,
        grace_until = CASE WHEN k.sealed IS NULL THEN NULL ELSE now() + make_interval(secs => ${graceSeconds}::int) END
      FROM token_families f, k
      WHERE r.jti_hash = k.old_hash AND r.consumed_at IS NULL AND r.expires_at > now()
        AND f.id = r.family_id AND f.revoked_at IS NULL
      RETURNING r.family_id, r.jti_hash AS old_hash, r.predecessor_hash, k.new_hash, k.expires_at, k.i
    ), successors AS (
      INSERT INTO refresh_tokens (jti_hash, family_id, expires_at, predecessor_hash)
      SELECT new_hash, family_id, expires_at, old_hash FROM consumed
    ), predecessors AS (
      UPDATE refresh_tokens p SET successor_sealed = NULL, grace_until = NULL
      FROM consumed c WHERE p.jti_hash = c.predecessor_hash AND p.successor_sealed IS NOT NULL
    )
    SELECT i, family_id FROM consumed`);
  const byPosition = new Map(
    rowsOf<{ i: string | number; family_id: string }>(result).map((r) => [Number(r.i), r.family_id]),
  );
  return rotations.map((_, i) => byPosition.get(i + 1) ?? null);
}

/**
 * `rotateRefreshMany` of one token.
 * @returns the family ID when rotated; null when the token is unknown, consumed, expired or its family revoked.
 */
export async function rotateRefresh(db: Executor, rotation: Rotation, graceSeconds: number): Promise<string | null> {
  const [family] = await rotateRefreshMany(db, [rotation], graceSeconds);
  return family ?? null;
}

/** A refresh token presented again after its rotation. */
export interface ConsumedToken {
  familyId: string;
  /**
   * Its rotation's sealed answer while the grace period runs,
   * the successor is unused and the family is live; else null.
   */
  successorSealed: string | null;
}

/** A refresh token that was already consumed (one primary-key lookup and its family's), or null. */
export async function consumedToken(db: Executor, jtiHash: Buffer): Promise<ConsumedToken | null> {
  const [row] = await db
    .select({
      familyId: refreshTokens.familyId,
      successorSealed: sql<
        string | null
      >`CASE WHEN ${refreshTokens.graceUntil} > now() AND ${tokenFamilies.revokedAt} IS NULL
        THEN ${refreshTokens.successorSealed} END`,
    })
    .from(refreshTokens)
    .innerJoin(tokenFamilies, eq(tokenFamilies.id, refreshTokens.familyId))
    .where(and(eq(refreshTokens.jtiHash, jtiHash), sql`${refreshTokens.consumedAt} IS NOT NULL`));
  return row ?? null;
}

/**
 * Erases the sealed answers whose reuse grace period has ended (`ASSENT_REFRESH_REUSE_GRACE_SECONDS`):
 * they are kept only for that window, also when the session was abandoned and its successor never
 * rotated (which would clear it at once). A sequential scan of `refresh_tokens`, once per purge
 * period, by design: an index on `grace_until` would make every rotation a non-HOT update that
 * writes all the table's indexes again (bench/run.mjs refresh storm: 1487/s with such an index
 * against 1862/s without, in alternating short runs).
 * @returns how many were erased (count).
 */
export async function clearLapsedSuccessors(db: Executor): Promise<number> {
  const result = await db.execute(sql`
    WITH cleared AS (
      UPDATE refresh_tokens SET successor_sealed = NULL, grace_until = NULL
      WHERE successor_sealed IS NOT NULL AND grace_until <= now()
      RETURNING 1)
    SELECT count(*)::int AS n FROM cleared`);
  return rowsOf<{ n: number }>(result)[0]?.n ?? 0;
}

/** Revokes a family; later access tokens and refresh tokens of it are refused. Idempotent. */
export async function revokeFamily(db: Executor, familyId: string, reason: string): Promise<void> {
  await db
    .update(tokenFamilies)
    .set({ revokedAt: sql`now()`, revokedReason: reason })
    .where(and(eq(tokenFamilies.id, familyId), isNull(tokenFamilies.revokedAt)));
}

/**
 * Revokes the user's live token families, but `keep` when given.
 * @param keep - the family to keep, or null to revoke every one.
 * @param reason - stored in `revoked_reason`.
 * @returns how many families were revoked (count).
 */
export async function revokeUserFamilies(
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

/** One primary-key lookup: is the family live? */
export async function isFamilyLive(db: Executor, familyId: string): Promise<boolean> {
  const [row] = await db
    .select({ revokedAt: tokenFamilies.revokedAt })
    .from(tokenFamilies)
    .where(eq(tokenFamilies.id, familyId));
  return row !== undefined && row.revokedAt === null;
}

/** Stores a new API key. */
export async function insertApiKey(
  db: Executor,
  row: { id: string; userId: string; tokenSealed: string; expiresAt: Date },
) {
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
  const [row] = await db
    .select({ clientId: clients.clientId })
    .from(clients)
    .orderBy(clients.createdAt, clients.id)
    .limit(1);
  return row?.clientId ?? null;
}

/** What a login needs, read in one round trip before the password is checked. */
export interface LoginLookup {
  /** The user's whole profile (as `userProfile` reads it), or null when the username is unknown. */
  profile: UserProfile | null;
  /** Latest block end among the attempt's throttle keys, or null when none is blocked. */
  blockedUntil: Date | null;
  /** Whether the account key has failures on record (so a success must clear them). */
  accountHasFailures: boolean;
}

const lookupStatement = perDb((db) =>
  statementHandle(db)
    .select({
      row: users,
      ...profileColumns,
      blockedUntil: sql<string | Date | null>`(SELECT max(blocked_until) FROM login_throttle
        WHERE key IN (${sql.placeholder('accountKey')}, ${sql.placeholder('ipKey')}) AND blocked_until > now())`,
      accountHasFailures: sql<boolean>`EXISTS (SELECT 1 FROM login_throttle
        WHERE key = ${sql.placeholder('accountKey')})`,
    })
    .from(users)
    // The right join keeps one row (with a null user) for an unknown username, so both cases cost
    // the same single statement and cannot be told apart by timing (ASVS 5.0 V6.3.8).
    .rightJoin(sql`(SELECT 1) AS one`, eq(users.username, sql.placeholder('username')))
    .prepare('login_lookup'),
);

/**
 * Looks up a user by lower-case username together with the throttle state of the attempt and
 * everything the login response shows (one prepared statement).
 * @param username - normalised username.
 * @param accountKey - `u:<username>`.
 * @param ipKey - `ip:<address>`.
 */
export async function loginLookup(db: Db, username: string, accountKey: string, ipKey: string): Promise<LoginLookup> {
  const [row] = await lookupStatement(db).execute({ username, accountKey, ipKey });
  return {
    profile: row?.row
      ? toProfile({ row: row.row, orgs: row.orgs, roles: row.roles, apiKeySealed: row.apiKeySealed })
      : null,
    blockedUntil: row?.blockedUntil ? new Date(row.blockedUntil) : null,
    accountHasFailures: Boolean(row?.accountHasFailures),
  };
}

const openSessionStatement = perDb((db) =>
  prepareRaw(
    db,
    'open_session',
    sql`
    WITH family AS (
      INSERT INTO token_families (id, user_id, client_id, user_agent, ip_prefix)
      VALUES (${sql.placeholder('familyId')}, ${sql.placeholder('userId')}, ${sql.placeholder('clientId')},
        ${sql.placeholder('userAgent')}, ${sql.placeholder('ipPrefix')})
      RETURNING id
    ), refresh AS (
      INSERT INTO refresh_tokens (jti_hash, family_id, expires_at)
      SELECT ${sql.placeholder('jtiHash')}, id, ${sql.placeholder('expiresAt')}::timestamptz FROM family
    )
    UPDATE users SET last_visit_at = now() WHERE id = ${sql.placeholder('userId')} RETURNING last_visit_at`,
  ),
);

/**
 * Opens a session in one prepared statement: the token family (with the device it was opened from), its first
 * refresh token, and the user's `LastVisit` set to now.
 * @param session.userAgent - at most 300 characters; `ipPrefix` from `ipPrefix` (src/platform/util/ip.ts).
 * @returns the new `LastVisit`.
 */
export async function openSession(
  db: Db,
  session: {
    familyId: string;
    userId: string;
    clientId: string;
    jtiHash: Buffer;
    expiresAt: Date;
    userAgent: string;
    ipPrefix: string;
  },
): Promise<Date> {
  const result = await openSessionStatement(db).execute({ ...session, expiresAt: session.expiresAt.toISOString() });
  const row = rowsOf<{ last_visit_at: string | Date }>(result)[0];
  return row ? new Date(row.last_visit_at) : new Date();
}

/**
 * Deletes the user's credentials: sessions (refresh tokens and their families, so every access token of them is
 * refused; their sealed ID tokens go with them by cascade), API keys, and the failed-login counter of `username`.
 * @param username - the account's username before it was scrubbed (its throttle key is `u:<username>`).
 */
export async function deleteUserCredentials(tx: Executor, userId: string, username: string): Promise<void> {
  await tx.execute(
    sql`DELETE FROM refresh_tokens WHERE family_id IN (SELECT id FROM token_families WHERE user_id = ${userId})`,
  );
  await tx.execute(sql`DELETE FROM token_families WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM api_keys WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM login_throttle WHERE key = ${`u:${username}`}`);
}
