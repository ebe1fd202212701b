/**
 * SQL of event webhook deliveries (docs/events.md "Delivery guarantees"): whether webhooks are behind the feed, the
 * claim of due deliveries under a lease (`FOR UPDATE SKIP LOCKED`, so that processes share the work and none sends a
 * delivery another holds), and the settling of attempts. The fan-out itself is in fan-out-store.ts.
 */

import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../platform/db/open.js';
import type { DeliveryAttempt } from '../../platform/db/schema/index.js';

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
  /** The lane (an individual's ID, '' for catalogue events, the delivery's own ID for a ping or redelivery). */
  lane: string;
  /** Its place in the lane: a run is sent in ascending `ord`. */
  ord: number;
  /** This attempt's number, from 1. */
  attempt: number;
  /** Whether the claim counted the attempt (the lane's head); a run's later deliveries count theirs when settled. */
  counted: boolean;
  /** A ping's body; null for an event (built from its outbox row). */
  body: string | null;
  createdAt: Date;
}

/** How much one claim takes (counts): lane heads, and deliveries per lane (the head included). */
export interface ClaimSize {
  lanes: number;
  depth: number;
}

/**
 * Claims due lanes: up to `size.lanes` lane heads of enabled webhooks (a lane's oldest pending delivery, due and not
 * leased), locked with `SKIP LOCKED` so that processes take different lanes, leased for `leaseSeconds` with their
 * attempt counted; and with each, up to `size.depth - 1` pending deliveries after it (the lane's run), read but not
 * written. The head's lease holds the whole lane: a later delivery is not a head while the earlier one is pending, so
 * no other process takes it, and a process that dies leaves the lane to the next claim after the lease.
 * @param leaseSeconds - seconds.
 * @returns the claimed deliveries, in no particular order.
 */
export async function claimDue(db: Executor, leaseSeconds: number, size: ClaimSize): Promise<ClaimedDelivery[]> {
  const result = await db.execute(sql`WITH heads AS (
      SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.state = 'pending' AND d.next_at <= now() AND (d.leased_until IS NULL OR d.leased_until < now())
        AND NOT w.disabled
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
          WHERE p.webhook_id = d.webhook_id AND p.lane = d.lane AND p.state = 'pending' AND p.ord < d.ord)
      ORDER BY d.next_at, d.ord LIMIT ${size.lanes}
      FOR UPDATE OF d SKIP LOCKED
    ), leased AS (
      UPDATE webhook_deliveries d
      SET leased_until = now() + ${leaseSeconds} * interval '1 second', attempts = d.attempts + 1
      FROM heads WHERE d.id = heads.id AND d.state = 'pending'
      RETURNING d.id, d.webhook_id, d.lane, d.ord, d.attempts
    )
    SELECT r.id, r.webhook_id, r.org_id, r.event_id, r.event_type, r.lane, r.ord, r.body, r.created_at,
      (r.id = l.id) AS counted, CASE WHEN r.id = l.id THEN l.attempts ELSE r.attempts + 1 END AS attempts
    FROM leased l CROSS JOIN LATERAL (
      SELECT p.* FROM webhook_deliveries p
      WHERE p.webhook_id = l.webhook_id AND p.lane = l.lane AND p.state = 'pending' AND p.ord >= l.ord
      ORDER BY p.ord LIMIT ${size.depth}) r`);
  return rowsOf<{
    id: string;
    webhook_id: string;
    org_id: string;
    event_id: string;
    event_type: string;
    lane: string;
    ord: number | string;
    attempts: number;
    counted: boolean;
    body: string | null;
    created_at: Date | string;
  }>(result).map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    orgId: r.org_id,
    eventId: r.event_id,
    eventType: r.event_type,
    lane: r.lane,
    ord: Number(r.ord),
    attempt: Number(r.attempts),
    counted: Boolean(r.counted),
    body: r.body,
    createdAt: new Date(r.created_at),
  }));
}

/** One attempt's record (as logged, with its time as a Date) and what it makes of its delivery. */
export interface Settled extends Omit<DeliveryAttempt, 'at'> {
  deliveryId: string;
  webhookId: string;
  at: Date;
  /** The delivery's state after it: `succeeded`, `failed`, or `pending` (retried at `nextAt`). */
  state: 'succeeded' | 'failed' | 'pending';
  nextAt?: Date;
  /** False when the claim did not count this attempt (`ClaimedDelivery.counted`); absent means it did. */
  counted?: boolean;
}

/**
 * Records attempts and their outcome in one transaction: each attempt appended to its delivery's `attempt_log`, the
 * deliveries' state (only while the delivery is still this attempt's: a process whose lease ran out does not
 * overwrite its successor's, though its attempt is logged), and each webhook's last success or start of failing. A
 * success at a webhook that was failing makes its other pending deliveries due at once: the receiver is back, so the
 * backlog drains without waiting out each backoff. A run's later deliveries, whose attempt the claim did not count
 * (`counted` false), count it here.
 */
export async function settle(tx: Executor, results: Settled[]): Promise<void> {
  if (results.length === 0) return;
  const rows = JSON.stringify(
    results.map((r) => ({
      delivery_id: r.deliveryId,
      attempt: r.attempt,
      state: r.state,
      next_at: r.nextAt?.toISOString() ?? null,
      finished: r.state === 'pending' ? null : r.at.toISOString(),
      counted: r.counted !== false,
      record: attemptRecord(r),
    })),
  );
  const current = sql`(d.state = 'pending' AND d.attempts = v.attempt - CASE WHEN v.counted THEN 0 ELSE 1 END)`;
  await tx.execute(sql`UPDATE webhook_deliveries d
    SET attempt_log = d.attempt_log || jsonb_build_array(v.record),
      state = CASE WHEN ${current} THEN v.state ELSE d.state END,
      next_at = CASE WHEN ${current} THEN coalesce(v.next_at, d.next_at) ELSE d.next_at END,
      leased_until = CASE WHEN ${current} THEN NULL ELSE d.leased_until END,
      finished_at = CASE WHEN ${current} THEN v.finished ELSE d.finished_at END,
      attempts = CASE WHEN ${current} THEN v.attempt ELSE d.attempts END
    FROM jsonb_to_recordset(${rows}::jsonb) AS v(delivery_id uuid, attempt int, state text, next_at timestamptz,
      finished timestamptz, counted boolean, record jsonb)
    WHERE d.id = v.delivery_id`);
  await markWebhooks(tx, results);
}

/** An attempt as the deliveries log keeps it (docs/events.md "The deliveries log"). */
export function attemptRecord(r: Settled): DeliveryAttempt {
  return {
    attempt: r.attempt,
    at: r.at.toISOString(),
    durationMs: r.durationMs,
    status: r.status,
    error: r.error,
    requestHeaders: r.requestHeaders,
    responseHeaders: r.responseHeaders,
  };
}

/**
 * Records on each webhook its last success or the start of its failing, from these attempts. A success at a webhook
 * that was failing makes its other pending deliveries due at once: the receiver is back, so the backlog drains without
 * waiting out each backoff.
 */
export async function markWebhooks(tx: Executor, results: Settled[]): Promise<void> {
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
