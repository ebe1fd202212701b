/**
 * The figures of the webhook storm of (g) (consent-events.mjs), computed after the run from two lists: the events
 * committed since the webhook was created (the outbox, `organisation_events`, by SQL: ID and `occurred_at`, which is
 * the event's `time`) and the receiver's deliveries (ID, subject, sequence, time, receipt time). Nothing is sampled
 * while the storm runs, so counting costs the storm nothing, and "committed by instant t" is read from `occurred_at`.
 */
import { quantile } from './stats.mjs';
import { r1, r2 } from './util.mjs';

/** p50/p99/max/mean of a list of milliseconds. */
export function latencySummary(values) {
  const sorted = [...values].sort((x, y) => x - y);
  if (sorted.length === 0) return { n: 0, p50: null, p99: null, max: null, mean: null };
  return {
    n: sorted.length,
    p50: r1(quantile(sorted, 0.5)),
    p99: r1(quantile(sorted, 0.99)),
    max: r1(sorted[sorted.length - 1]),
    mean: r1(sorted.reduce((s, x) => s + x, 0) / sorted.length),
  };
}

/** How many of the ascending `sorted` are ≤ x (binary search). */
function countUpTo(sorted, x) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Least-squares slope of `points` ([x, y]), or null for fewer than two. */
function slope(points) {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  const sxx = points.reduce((s, p) => s + (p[0] - mx) ** 2, 0);
  return sxx > 0 ? points.reduce((s, p) => s + (p[0] - mx) * (p[1] - my), 0) / sxx : null;
}

/**
 * The delivery figures of one storm.
 * @param {Array<{id: string, t: number}>} committed  events committed since the webhook's creation (t: `time`, ms)
 * @param {Array<[string, string|null, string, number, number]>} records  the receiver's deliveries, in receipt order
 * @param {{start: number, finish: number}} windowMs  the measured storm
 * @returns latencies (receipt − `time`) of the events committed in the window (all received, late ones included)
 *   and of those received in it; delivered and committed per second in the window; the backlog (committed, not yet
 *   received) at the end and each second, its slope after the first second (events/s); the drain time after the
 *   window and its pace; and the checks:
 *   missing, unexpected and duplicate deliveries, and one individual's events received out of sequence order.
 */
export function analyseDelivery(committed, records, windowMs) {
  const { start, finish } = windowMs;
  const seconds = (finish - start) / 1000;
  const firstReceipt = new Map();
  let duplicates = 0;
  let orderViolations = 0;
  const lastSequence = new Map();
  for (const [id, subject, sequence, , receivedMs] of records) {
    if (firstReceipt.has(id)) {
      duplicates++;
      continue;
    }
    firstReceipt.set(id, receivedMs);
    if (subject) {
      const last = lastSequence.get(subject);
      if (last !== undefined && sequence < last) orderViolations++; // 20-digit strings order as their numbers
      lastSequence.set(subject, sequence);
    }
  }
  const committedIds = new Set(committed.map((e) => e.id));
  const unexpected = [...firstReceipt.keys()].filter((id) => !committedIds.has(id)).length;
  const missing = committed.filter((e) => !firstReceipt.has(e.id)).length;

  const inWindow = committed.filter((e) => e.t >= start && e.t <= finish);
  const latencyCommittedInWindow = inWindow
    .filter((e) => firstReceipt.has(e.id))
    .map((e) => firstReceipt.get(e.id) - e.t);
  const timeOf = new Map(committed.map((e) => [e.id, e.t]));
  const receivedInWindow = [...firstReceipt].filter(([id, at]) => at >= start && at <= finish && timeOf.has(id));
  const latencyReceivedInWindow = receivedInWindow.map(([id, at]) => at - timeOf.get(id));

  const committedTimes = committed.map((e) => e.t).sort((x, y) => x - y);
  const receiptTimes = [...firstReceipt.values()].sort((x, y) => x - y);
  const backlogAt = (t) => countUpTo(committedTimes, t) - countUpTo(receiptTimes, t);
  const series = [];
  for (let k = 0; start + k * 1000 <= finish; k++) series.push([k, backlogAt(start + k * 1000)]);
  let lastReceipt = null;
  for (const e of committed) {
    const at = firstReceipt.get(e.id);
    if (at !== undefined && (lastReceipt === null || at > lastReceipt)) lastReceipt = at;
  }
  return {
    committed: committed.length,
    received: firstReceipt.size,
    duplicates,
    missing,
    unexpected,
    orderViolations,
    windowSeconds: r2(seconds),
    committedInWindow: inWindow.length,
    committedPerSecond: r1(inWindow.length / seconds),
    deliveredPerSecond: r1(receivedInWindow.length / seconds),
    latencyMs: {
      committedInWindow: latencySummary(latencyCommittedInWindow),
      receivedInWindow: latencySummary(latencyReceivedInWindow),
    },
    backlogAtStart: backlogAt(start),
    backlogAtEnd: backlogAt(finish),
    backlogEachSecond: series.map(([, b]) => b),
    // Past the first second: the ramp from the backlog at the start to its steady size is not growth.
    backlogSlopePerSecond: r1(slope(series.slice(1))),
    drainSeconds: missing === 0 && lastReceipt !== null ? r2(Math.max(0, lastReceipt - finish) / 1000) : null,
    // The backlog's pace once the storm stopped: what delivery alone does with the server otherwise idle.
    drainPerSecond:
      missing === 0 && lastReceipt !== null && lastReceipt > finish
        ? r1((committed.length - countUpTo(receiptTimes, finish)) / ((lastReceipt - finish) / 1000))
        : null,
  };
}

/**
 * Where the time between an event's commit and its delivery went, from the server's own records, for the events
 * committed in the window: to its fan-out (numbered by the sequencer, then a delivery row written:
 * `webhook_deliveries.created_at − occurred_at`), queued (waiting for its lane's earlier events and a claim round:
 * the first attempt's `at` − `created_at`) and sent (the first attempt's `duration_ms`: signing excluded, the POST
 * until its answer).
 * @param sql - a pg client on the bench database.
 * @returns `{fanOutMs, queuedMs, sendMs}`, each `latencySummary`.
 */
export async function serverSplit(sql, webhookId, windowMs) {
  const { rows } = await sql.query(
    `SELECT date_part('epoch', d.created_at - e.occurred_at) * 1000 AS fan_out,
       date_part('epoch', (d.attempt_log->0->>'at')::timestamptz - d.created_at) * 1000 AS queued,
       (d.attempt_log->0->>'durationMs')::int AS send
     FROM webhook_deliveries d JOIN organisation_events e ON e.id = d.event_id
     WHERE jsonb_array_length(d.attempt_log) > 0 AND d.webhook_id = $1 AND e.occurred_at BETWEEN to_timestamp($2 / 1000.0) AND to_timestamp($3 / 1000.0)`,
    [webhookId, windowMs.start, windowMs.finish],
  );
  return {
    fanOutMs: latencySummary(rows.map((r) => Number(r.fan_out))),
    queuedMs: latencySummary(rows.map((r) => Number(r.queued))),
    sendMs: latencySummary(rows.map((r) => Number(r.send))),
  };
}
