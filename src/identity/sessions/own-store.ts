/** SQL of a person's own sessions as they are shown them (docs/security.md "Sessions"). */
import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../platform/db/open.js';

/** A live session as its person sees it. */
export interface OwnSessionRow {
  id: string;
  createdAt: Date;
  /** The last refresh, or the browser's last request (a minute's precision); null when never used since. */
  lastUsedAt: Date | null;
  clientId: string;
  userAgent: string;
  ipPrefix: string;
  /** A browser session of the dashboard or the console. */
  web: boolean;
}

/** Sessions listed at most (count): more are ended by their expiry. */
const MAX_SESSIONS = 200;

/**
 * The user's live sessions (token families not revoked, with a refresh token or a browser session not yet expired),
 * last used first.
 * @param refreshTtlSeconds - the refresh tokens' lifetime: a token's issue time is its expiry less this (seconds).
 */
export async function ownSessions(db: Executor, userId: string, refreshTtlSeconds: number): Promise<OwnSessionRow[]> {
  const rows = rowsOf<{
    id: string;
    created_at: string | Date;
    last_used: string | Date | null;
    client_id: string;
    user_agent: string;
    ip_prefix: string;
    web: boolean;
  }>(
    await db.execute(sql`SELECT f.id, f.created_at, f.client_id, f.user_agent, f.ip_prefix,
        EXISTS (SELECT 1 FROM web_sessions w WHERE w.family_id = f.id) AS web,
        greatest(
          (SELECT max(r.expires_at) FROM refresh_tokens r WHERE r.family_id = f.id)
            - make_interval(secs => ${refreshTtlSeconds}),
          (SELECT max(w.last_seen_at) FROM web_sessions w WHERE w.family_id = f.id)) AS last_used
      FROM token_families f
      WHERE f.user_id = ${userId} AND f.revoked_at IS NULL
        AND (EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = f.id AND r.consumed_at IS NULL
               AND r.expires_at > now())
          OR EXISTS (SELECT 1 FROM web_sessions w WHERE w.family_id = f.id AND w.expires_at > now()))
      ORDER BY last_used DESC NULLS LAST, f.created_at DESC
      LIMIT ${MAX_SESSIONS}`),
  );
  return rows.map((r) => ({
    id: r.id,
    createdAt: new Date(r.created_at),
    lastUsedAt: r.last_used === null ? null : new Date(r.last_used),
    clientId: r.client_id,
    userAgent: r.user_agent,
    ipPrefix: r.ip_prefix,
    web: r.web,
  }));
}

/**
 * Revokes one of the user's live sessions, in one statement: another person's session, or an ended one, is untouched.
 * @returns whether there was one.
 */
export async function revokeOwnSession(db: Executor, userId: string, familyId: string): Promise<boolean> {
  return (
    rowsOf(
      await db.execute(sql`UPDATE token_families SET revoked_at = now(), revoked_reason = 'ended by its person'
        WHERE id = ${familyId} AND user_id = ${userId} AND revoked_at IS NULL RETURNING id`),
    ).length > 0
  );
}
