/**
 * SQL of the fan-out (docs/events.md "Delivery guarantees"; docs/decisions/0032-event-webhooks.md, amendment "first
 * attempts at fan-out"): a webhook's events after its `last_seq` are taken under a lease on the webhook row, sent once
 * straight from the outbox (read as the feed reads them, ../events/store.ts `eventsAfter`), and then written as
 * deliveries (finished ones with their attempt, the rest pending) in the transaction that moves `last_seq`, so that
 * each event becomes exactly one delivery per subscribed webhook.
 */
import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../platform/db/open.js';
import type { DeliveryAttempt } from '../../platform/db/schema/index.js';
import type { WebhookTarget } from './store.js';

/** Events fanned out per webhook per round at most (count). */
export const FAN_OUT_BATCH = 1000;

/** A webhook leased for fan-out: where its cursor is, how far the feed goes, and where to send. */
export interface LeasedWebhook extends WebhookTarget {
  /** The last feed `seq` fanned out. */
  lastSeq: number;
  /** The organisation's feed head (`seq`). */
  head: number;
  subscribedEvents: string[];
  /** The lease's end, as stored: the round writes its deliveries only while it still holds this lease. */
  leasedUntil: string;
}

/**
 * Leases the organisation's enabled webhooks that are behind the feed head and that no process is fanning out, for
 * `leaseSeconds`. Concurrent callers serialise on the webhook row, so that one process at a time fans a webhook out.
 * @param leaseSeconds - seconds.
 */
export async function leaseBehind(db: Executor, orgId: string, leaseSeconds: number): Promise<LeasedWebhook[]> {
  const result = await db.execute(sql`UPDATE webhooks w
    SET fan_out_leased_until = clock_timestamp() + ${leaseSeconds} * interval '1 second'
    FROM organisation_event_heads h
    WHERE h.org_id = w.org_id AND w.org_id = ${orgId} AND NOT w.disabled AND w.last_seq < h.seq
      AND (w.fan_out_leased_until IS NULL OR w.fan_out_leased_until < now())
    RETURNING w.id, w.org_id, w.payload_url, w.content_type, w.secret_sealed, w.previous_secret_sealed,
      w.previous_secret_until, w.last_seq, h.seq AS head, w.subscribed_events, w.fan_out_leased_until::text AS lease`);
  return rowsOf<{
    id: string;
    org_id: string;
    payload_url: string;
    content_type: string;
    secret_sealed: string;
    previous_secret_sealed: string | null;
    previous_secret_until: Date | string | null;
    last_seq: number | string;
    head: number | string;
    subscribed_events: string[];
    lease: string;
  }>(result).map((r) => ({
    id: r.id,
    orgId: r.org_id,
    payloadUrl: r.payload_url,
    contentType: r.content_type,
    secretSealed: r.secret_sealed,
    previousSecretSealed: r.previous_secret_sealed,
    previousSecretUntil: r.previous_secret_until === null ? null : new Date(r.previous_secret_until),
    lastSeq: Number(r.last_seq),
    head: Number(r.head),
    subscribedEvents: r.subscribed_events,
    leasedUntil: r.lease,
  }));
}

/** Of these lanes, those with a pending delivery to the webhook: their next events must wait behind it. */
export async function busyLanes(db: Executor, webhookId: string, lanes: string[]): Promise<string[]> {
  if (lanes.length === 0) return [];
  const result = await db.execute(sql`SELECT l.lane FROM jsonb_array_elements_text(${JSON.stringify(lanes)}::jsonb)
    AS l(lane)
    WHERE EXISTS (SELECT 1 FROM webhook_deliveries p
      WHERE p.webhook_id = ${webhookId} AND p.lane = l.lane AND p.state = 'pending')`);
  return rowsOf<{ lane: string }>(result).map((r) => r.lane);
}

/** A delivery as the fan-out writes it: finished at its first attempt, pending after one, or pending unsent. */
export interface FannedOut {
  id: string;
  eventId: string;
  eventType: string;
  lane: string;
  state: 'succeeded' | 'failed' | 'pending';
  /** Attempts made (0 or 1). */
  attempts: number;
  nextAt: Date;
  finishedAt: Date | null;
  attemptLog: DeliveryAttempt[];
}

/**
 * Moves the webhook's `last_seq` from `after` to `upto`, ends its fan-out lease and inserts its deliveries in the
 * given order (which becomes their `ord`), all or nothing: only while the round still holds its lease and the cursor
 * is where the round found it. Run it in one transaction.
 * @returns false when the lease was lost (another process may have taken the range): nothing was written, and the
 *   range's events go out again from that process, at least once.
 */
export async function recordFanOut(
  tx: Executor,
  webhook: LeasedWebhook,
  upto: number,
  createdAt: Date,
  rows: FannedOut[],
): Promise<boolean> {
  const moved = await tx.execute(sql`UPDATE webhooks SET last_seq = ${upto}, fan_out_leased_until = NULL
    WHERE id = ${webhook.id} AND last_seq = ${webhook.lastSeq}
      AND fan_out_leased_until = ${webhook.leasedUntil}::timestamptz
    RETURNING 1`);
  if (rowsOf(moved).length === 0) return false;
  if (rows.length === 0) return true;
  const values = JSON.stringify(
    rows.map((r, i) => ({
      i,
      id: r.id,
      event_id: r.eventId,
      event_type: r.eventType,
      lane: r.lane,
      state: r.state,
      attempts: r.attempts,
      next_at: r.nextAt.toISOString(),
      finished_at: r.finishedAt?.toISOString() ?? null,
      attempt_log: r.attemptLog,
    })),
  );
  await tx.execute(sql`INSERT INTO webhook_deliveries
      (id, webhook_id, org_id, event_id, event_type, lane, state, attempts, next_at, created_at, finished_at,
      attempt_log)
    SELECT v.id, ${webhook.id}::uuid, ${webhook.orgId}::uuid, v.event_id, v.event_type, v.lane, v.state, v.attempts,
      v.next_at, ${createdAt.toISOString()}::timestamptz, v.finished_at, v.attempt_log
    FROM jsonb_to_recordset(${values}::jsonb) AS v(i int, id uuid, event_id uuid, event_type text, lane text,
      state text, attempts int, next_at timestamptz, finished_at timestamptz, attempt_log jsonb)
    ORDER BY v.i`);
  return true;
}

/** Ends a round's lease without moving the cursor (the round failed): the range is another round's at once. */
export async function releaseLease(db: Executor, webhook: LeasedWebhook): Promise<void> {
  await db.execute(sql`UPDATE webhooks SET fan_out_leased_until = NULL
    WHERE id = ${webhook.id} AND fan_out_leased_until = ${webhook.leasedUntil}::timestamptz`);
}
