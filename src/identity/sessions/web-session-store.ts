/** SQL of the web sessions (`web_sessions`, src/platform/db/schema/web.ts), for `web-sessions.ts` and the purge. */
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { webSessions } from '../../platform/db/schema/index.js';

/** A stored web session, as read back. */
export interface WebSessionRow {
  userId: string;
  familyId: string;
  csrfToken: string;
  lastSeenAt: Date;
  expiresAt: Date;
}

/** Stores a new session under the SHA-256 of its cookie value. */
export async function insertSession(
  db: Executor,
  row: { idHash: Buffer; userId: string; familyId: string; csrfToken: string; expiresAt: Date },
): Promise<void> {
  await db.insert(webSessions).values(row);
}

/** The session of a cookie's hash, or null; expired rows are not answered. */
export async function findSession(db: Executor, idHash: Buffer): Promise<WebSessionRow | null> {
  const [row] = await db
    .select({
      userId: webSessions.userId,
      familyId: webSessions.familyId,
      csrfToken: webSessions.csrfToken,
      lastSeenAt: webSessions.lastSeenAt,
      expiresAt: webSessions.expiresAt,
    })
    .from(webSessions)
    .where(and(eq(webSessions.idHash, idHash), sql`${webSessions.expiresAt} > now()`));
  return row ?? null;
}

/** Records activity (the idle timeout counts from here). */
export async function touchSession(db: Executor, idHash: Buffer): Promise<void> {
  await db.update(webSessions).set({ lastSeenAt: sql`now()` }).where(eq(webSessions.idHash, idHash));
}

/** Deletes one session; answers its token family when there was one. */
export async function deleteSession(
  db: Executor,
  idHash: Buffer,
): Promise<{ userId: string; familyId: string } | null> {
  const [row] = await db
    .delete(webSessions)
    .where(eq(webSessions.idHash, idHash))
    .returning({ userId: webSessions.userId, familyId: webSessions.familyId });
  return row ?? null;
}

/**
 * Deletes the sessions past their absolute end or idle for longer than `idleSeconds`.
 * @returns how many were deleted.
 */
export async function purgeSessions(db: Executor, idleSeconds: number): Promise<number> {
  const gone = await db
    .delete(webSessions)
    .where(
      sql`${webSessions.expiresAt} <= now() OR ${lt(webSessions.lastSeenAt, sql`now() - make_interval(secs => ${idleSeconds})`)}`,
    )
    .returning({ userId: webSessions.userId });
  return gone.length;
}
