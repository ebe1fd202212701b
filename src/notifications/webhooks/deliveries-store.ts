/**
 * SQL of event webhook deliveries (docs/events.md "Delivery guarantees"): the fan-out of numbered outbox events into
 * one delivery per subscribed webhook, the claim of due deliveries under a lease (`FOR UPDATE SKIP LOCKED`, so that
 * processes share the work and none sends a delivery another holds), the settling of attempts, and the log.
 */

import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../platform/db/open.js';
import { organisationEvents, webhookDeliveries, webhookDeliveryAttempts } from '../../platform/db/schema/index.js';

/** Events fanned out per webhook per transaction at most (count). */
export const FAN_OUT_BATCH = 1000;

/**
 * Fans the organisation's numbered events out into deliveries, for each enabled webhook behind the feed head that no
 * other process is fanning out (`SKIP LOCKED`): up to FAN_OUT_BATCH events after its `last_seq`, one pending delivery
 * for each event of a subscribed type, in `seq` order, then moves `last_seq`. Run it in one transaction.
 * @returns whether a webhook may have more to fan out (it reached the batch's end).
 */
export async function fanOut(tx: Executor, orgId: string): Promise<boolean> {
  const behind = rowsOf<{ id: string; last_seq: number | string; head: number | string; events: string[] }>(
    await tx.execute(sql`SELECT w.id, w.last_seq, h.seq AS head, w.subscribed_events AS events
      FROM webhooks w JOIN organisation_event_heads h ON h.org_id = w.org_id
      WHERE w.org_id = ${orgId} AND NOT w.disabled AND w.last_seq < h.seq
      FOR UPDATE OF w SKIP LOCKED`),
  );
  let more = false;
  for (const w of behind) {
    const last = Number(w.last_seq);
    const upto = Math.min(Number(w.head), last + FAN_OUT_BATCH);
    if (upto < Number(w.head)) more = true;
    await tx.execute(sql`INSERT INTO webhook_deliveries
        (id, webhook_id, org_id, event_id, event_type, lane, state, next_at, created_at)
      SELECT gen_random_uuid(), ${w.id}::uuid, e.org_id, e.id, e.type, coalesce(e.subject::text, ''), 'pending', now(), now()
      FROM organisation_events e
      WHERE e.org_id = ${orgId} AND e.seq > ${last} AND e.seq <= ${upto}
        AND e.type IN (SELECT jsonb_array_elements_text(${JSON.stringify(w.events)}::jsonb))
      ORDER BY e.seq`);
    await tx.execute(sql`UPDATE webhooks SET last_seq = ${upto} WHERE id = ${w.id}`);
  }
  return more;
}

/** Whether the organisation has an enabled webhook behind its feed head (a read, with no lock). */
export async function isBehind(db: Executor, orgId: string): Promise<boolean> {
  const result = await db.execute(sql`SELECT EXISTS (SELECT 1 FROM webhooks w
    JOIN organisation_event_heads h ON h.org_id = w.org_id
    WHERE w.org_id = ${orgId} AND NOT w.disabled AND w.last_seq < h.seq) AS any`);
  return Boolean(rowsOf<{ any: boolean }>(result)[0]?.any);
}

/** The organisations with an enabled webhook behind its feed head (for the sweep). */
export async function organisationsBehind(db: Executor): Promise<string[]> {
  const result = await db.execute(sql`SELECT DISTINCT w.org_id FROM webhooks w
    JOIN organisation_event_heads h ON h.org_id = w.org_id WHERE NOT w.disabled AND w.last_seq < h.seq`);
  return rowsOf<{ org_id: string }>(result).map((r) => r.org_id);
}

/** A claimed delivery, ready to send. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  orgId: string;
  eventId: string;
  eventType: string;
  /** This attempt's number, from 1. */
  attempt: number;
  /** A ping's body; null for an event (built from its outbox row). */
  body: string | null;
  createdAt: Date;
}

/**
 * Claims up to `limit` due deliveries of enabled webhooks, each the oldest pending one of its lane (so that one
 * individual's events go out in order), under a lease of `leaseSeconds`, and counts the attempt.
 * @param leaseSeconds - seconds; past it, a delivery whose process died is claimed again.
 */
export async function claimDue(db: Executor, leaseSeconds: number, limit: number): Promise<ClaimedDelivery[]> {
  const result = await db.execute(sql`WITH due AS (
      SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.state = 'pending' AND d.next_at <= now() AND (d.leased_until IS NULL OR d.leased_until < now())
        AND NOT w.disabled
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
          WHERE p.webhook_id = d.webhook_id AND p.lane = d.lane AND p.state = 'pending' AND p.ord < d.ord)
      ORDER BY d.next_at, d.ord LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE webhook_deliveries d
    SET leased_until = now() + ${leaseSeconds} * interval '1 second', attempts = d.attempts + 1
    FROM due WHERE d.id = due.id
    RETURNING d.id, d.webhook_id, d.org_id, d.event_id, d.event_type, d.attempts, d.body, d.created_at`);
  return rowsOf<{
    id: string;
    webhook_id: string;
    org_id: string;
    event_id: string;
    event_type: string;
    attempts: number;
    body: string | null;
    created_at: Date | string;
  }>(result).map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    orgId: r.org_id,
    eventId: r.event_id,
    eventType: r.event_type,
    attempt: Number(r.attempts),
    body: r.body,
    createdAt: new Date(r.created_at),
  }));
}

/** An outbox event as a delivery carries it. */
export type OutboxRow = Pick<
  typeof organisationEvents.$inferSelect,
  'id' | 'orgId' | 'seq' | 'type' | 'subject' | 'occurredAt' | 'data'
>;

/** The outbox rows of these event IDs. */
export function outboxRows(db: Executor, ids: string[]): Promise<OutboxRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const e = organisationEvents;
  return db
    .select({
      id: e.id,
      orgId: e.orgId,
      seq: e.seq,
      type: e.type,
      subject: e.subject,
      occurredAt: e.occurredAt,
      data: e.data,
    })
    .from(e)
    .where(inArray(e.id, ids));
}

/** One attempt's record and what it makes of its delivery. */
export interface Settled {
  deliveryId: string;
  webhookId: string;
  attempt: number;
  at: Date;
  durationMs: number;
  status: number | null;
  error: string | null;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  /** The delivery's state after it: `succeeded`, `failed`, or `pending` (retried at `nextAt`). */
  state: 'succeeded' | 'failed' | 'pending';
  nextAt?: Date;
}

/**
 * Records attempts and their outcome in one transaction: the attempts' rows, the deliveries' state (only while the
 * delivery is still this attempt's: a process whose lease ran out does not overwrite its successor's), and each
 * webhook's last success or start of failing. A success at a webhook that was failing makes its other pending
 * deliveries due at once: the receiver is back, so the backlog drains without waiting out each backoff.
 */
export async function settle(tx: Executor, results: Settled[]): Promise<void> {
  if (results.length === 0) return;
  const rows = JSON.stringify(
    results.map((r) => ({
      id: randomUUID(),
      delivery_id: r.deliveryId,
      attempt: r.attempt,
      at: r.at.toISOString(),
      duration_ms: r.durationMs,
      status: r.status,
      error: r.error,
      request_headers: r.requestHeaders,
      response_headers: r.responseHeaders,
      state: r.state,
      next_at: r.nextAt?.toISOString() ?? null,
      finished: r.state === 'pending' ? null : r.at.toISOString(),
    })),
  );
  await tx.execute(sql`INSERT INTO webhook_delivery_attempts
      (id, delivery_id, attempt, at, duration_ms, status, error, request_headers, response_headers)
    SELECT v.id, v.delivery_id, v.attempt, v.at, v.duration_ms, v.status, v.error, v.request_headers, v.response_headers
    FROM jsonb_to_recordset(${rows}::jsonb) AS v(id uuid, delivery_id uuid, attempt int, at timestamptz,
      duration_ms int, status int, error text, request_headers jsonb, response_headers jsonb)`);
  await tx.execute(sql`UPDATE webhook_deliveries d
    SET state = v.state, next_at = coalesce(v.next_at, d.next_at), leased_until = NULL, finished_at = v.finished
    FROM jsonb_to_recordset(${rows}::jsonb) AS v(delivery_id uuid, attempt int, state text, next_at timestamptz,
      finished timestamptz)
    WHERE d.id = v.delivery_id AND d.attempts = v.attempt AND d.state = 'pending'`);
  const ok = [...new Set(results.filter((r) => r.state === 'succeeded').map((r) => r.webhookId))];
  const failing = [...new Set(results.filter((r) => r.state !== 'succeeded').map((r) => r.webhookId))].filter(
    (id) => !ok.includes(id),
  );
  if (ok.length > 0) {
    const okIds = sql`(SELECT jsonb_array_elements_text(${JSON.stringify(ok)}::jsonb)::uuid)`;
    // The receiver is back: its other lanes' retries are due now, not at the end of their backoff.
    await tx.execute(sql`UPDATE webhook_deliveries SET next_at = now()
      WHERE state = 'pending' AND next_at > now()
        AND webhook_id IN (SELECT id FROM webhooks WHERE id IN ${okIds} AND failing_since IS NOT NULL)`);
    // At most once a second per webhook while all is well: the row is the fan-out's lock too (a hot row under load).
    await tx.execute(sql`UPDATE webhooks SET last_success_at = now(), failing_since = NULL WHERE id IN ${okIds}
      AND (failing_since IS NOT NULL OR last_success_at IS NULL OR last_success_at < now() - interval '1 second')`);
  }
  if (failing.length > 0)
    await tx.execute(sql`UPDATE webhooks SET failing_since = now()
      WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(failing)}::jsonb)::uuid) AND failing_since IS NULL`);
}

/** A stored delivery. */
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
/** A stored attempt. */
export type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;

/** Inserts a delivery (a ping's, already attempted, or a redelivery's, due now). */
export async function insertDelivery(tx: Executor, row: typeof webhookDeliveries.$inferInsert): Promise<void> {
  await tx.insert(webhookDeliveries).values(row);
}

/** One delivery of the webhook, or undefined. */
export async function readDelivery(db: Executor, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.id, id)));
  return row;
}

/**
 * The webhook's deliveries newest first, after the delivery `startId` (exclusive), at most `limit + 1` (the extra one
 * tells that a next page exists), with their attempts.
 * @param state - only deliveries in this state, when given.
 */
export async function deliveriesPage(
  db: Executor,
  webhookId: string,
  startId: string | undefined,
  limit: number,
  state: string | undefined,
): Promise<Array<DeliveryRow & { attemptRows: AttemptRow[] }>> {
  const d = webhookDeliveries;
  const start = startId ? await readDelivery(db, webhookId, startId) : undefined;
  const rows = await db
    .select()
    .from(d)
    .where(
      and(eq(d.webhookId, webhookId), start ? lt(d.ord, start.ord) : undefined, state ? eq(d.state, state) : undefined),
    )
    .orderBy(desc(d.ord))
    .limit(limit + 1);
  return withAttempts(db, rows);
}

/** One delivery of the webhook with its attempts, or undefined. */
export async function deliveryWithAttempts(
  db: Executor,
  webhookId: string,
  id: string,
): Promise<(DeliveryRow & { attemptRows: AttemptRow[] }) | undefined> {
  const row = await readDelivery(db, webhookId, id);
  return row ? (await withAttempts(db, [row]))[0] : undefined;
}

/** The deliveries with their attempts, in attempt order. */
async function withAttempts(
  db: Executor,
  rows: DeliveryRow[],
): Promise<Array<DeliveryRow & { attemptRows: AttemptRow[] }>> {
  const a = webhookDeliveryAttempts;
  const ids = rows.map((r) => r.id);
  const attempts =
    ids.length === 0 ? [] : await db.select().from(a).where(inArray(a.deliveryId, ids)).orderBy(asc(a.attempt));
  return rows.map((r) => ({ ...r, attemptRows: attempts.filter((x) => x.deliveryId === r.id) }));
}

/**
 * Deletes the deliveries that finished before `days` days ago, with their attempts; pending ones are never deleted.
 * @param days - days after finishing.
 * @returns how many deliveries were deleted (count).
 */
export async function deleteFinishedBefore(db: Executor, days: number): Promise<number> {
  const result = await db.execute(sql`DELETE FROM webhook_deliveries
    WHERE state <> 'pending' AND finished_at < now() - ${days} * interval '1 day' RETURNING 1`);
  return rowsOf(result).length;
}
