/**
 * SQL of the webhook delivery log (docs/notifications.md "Special consent request", Webhook): a row is written
 * before its request is sent and completed after, so the log holds every request that may have
 * reached the receiver, even when the sending process died in flight.
 */
import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/open.js';
import { webhookAttempts } from '../platform/db/schema/index.js';

/** A webhook log row as stored. */
export type AttemptRow = typeof webhookAttempts.$inferSelect;

/** An attempt about to be sent. */
export interface AttemptStart {
  /** UUIDv7 (time-ordered). */
  id: string;
  orgId: string;
  jobId: string;
  userId: string;
  url: string;
  /** 1 for the first try. */
  attempt: number;
}

/** How an attempt ended. */
export interface AttemptEnd {
  id: string;
  /** HTTP status of the answer, or null when none came. */
  status: number | null;
  /** Why it failed, in our words, or null on success. */
  error: string | null;
  /** milliseconds */
  durationMs: number;
}

/**
 * Records attempts as `sending`, before their requests go out, in one statement with one parameter
 * (a JSON array: a query-builder insert of 64 rows built hundreds of parameters and cost more
 * main-thread time than the sends, bench/consents.mjs). The same statement marks `unknown` any
 * earlier attempt of these individuals still `sending`: its process died before it learnt the outcome.
 */
export async function beginAttempts(db: Executor, rows: AttemptStart[]): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      org_id: r.orgId,
      job_id: r.jobId,
      user_id: r.userId,
      url: r.url,
      attempt: r.attempt,
    })),
  );
  await db.execute(sql`
    WITH x AS (SELECT * FROM json_to_recordset(${json}::json)
      AS x(id uuid, org_id uuid, job_id uuid, user_id uuid, url text, attempt int)),
    stale AS (
      UPDATE webhook_attempts w SET state = 'unknown'
      FROM x WHERE w.job_id = x.job_id AND w.user_id = x.user_id AND w.state = 'sending')
    INSERT INTO webhook_attempts (id, org_id, job_id, user_id, url, attempt, status, error, duration_ms, state)
    SELECT id, org_id, job_id, user_id, url, attempt, NULL, NULL, 0, 'sending' FROM x`);
}

/** Completes attempts recorded by `beginAttempts`: `delivered` when `error` is null, else `failed`. */
export async function endAttempts(db: Executor, rows: AttemptEnd[]): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(
    rows.map((r) => ({ id: r.id, status: r.status, error: r.error, duration_ms: r.durationMs })),
  );
  await db.execute(sql`
    UPDATE webhook_attempts w
    SET status = x.status, error = x.error, duration_ms = x.duration_ms,
      state = CASE WHEN x.error IS NULL THEN 'delivered' ELSE 'failed' END
    FROM json_to_recordset(${json}::json) AS x(id uuid, status int, error text, duration_ms int)
    WHERE w.id = x.id`);
}

/** One page of the organisation's webhook log, newest first (UUIDv7 IDs are time-ordered). */
export async function attemptsPage(
  db: Executor,
  orgId: string,
  before: string | undefined,
  limit: number,
): Promise<AttemptRow[]> {
  return db
    .select()
    .from(webhookAttempts)
    .where(
      before === undefined
        ? eq(webhookAttempts.orgId, orgId)
        : and(eq(webhookAttempts.orgId, orgId), lt(webhookAttempts.id, before)),
    )
    .orderBy(desc(webhookAttempts.id))
    .limit(limit);
}
