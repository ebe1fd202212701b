/**
 * The fan-out round with first attempts (docs/events.md "Delivery guarantees"; docs/decisions/0032-event-webhooks.md,
 * amendment "first attempts at fan-out"):
 *
 * 1. Lease: the organisation's webhooks behind the feed head, each leased to this process (fan-out-store.ts).
 * 2. Read: the events after the webhook's `last_seq` of the types it subscribed to, grouped by lane (individual), and
 *    which of those lanes already have a pending delivery (their events queue behind it, unsent).
 * 3. Send: each free lane's events in `seq` order, one at a time, lanes side by side; a retry ends the lane's run, and
 *    so does half the lease gone by.
 * 4. Record: one transaction moves `last_seq` and inserts one delivery per event (finished ones with their attempt,
 *    the rest pending, for the claim rounds of dispatcher.ts), only while the lease still holds.
 *
 * A process that dies between 3 and 4 leaves the range to the next lease: its events go out again (at least once,
 * same `webhook-id`), none is lost.
 */
import { transactionNotWaitingForDisk } from '../../platform/db/durability.js';
import type { Db } from '../../platform/db/open.js';
import { groupBy } from '../../platform/util/group.js';
import { mapLimit } from '../../platform/util/pool.js';
import { eventsAfter, type FeedRow } from '../events/store.js';
import { timeOrderedId } from '../ids.js';
import { attemptRecord, markWebhooks, type Settled } from './deliveries-store.js';
import * as store from './fan-out-store.js';

/** What a fan-out round needs of the dispatcher. */
export interface FanOutDeps {
  db: Db;
  /** How long a round holds a webhook (seconds); it stops sending at half of it. */
  leaseSeconds: number;
  /** Lanes sending at once (count). */
  concurrency: number;
  /** Signs and sends one event's first attempt. */
  send: (target: store.LeasedWebhook, event: FeedRow, deliveryId: string, createdAt: Date) => Promise<Settled>;
  /** Called with each retry's due time (epoch milliseconds) after the round is recorded. */
  retryAt: (at: number) => void;
}

/** What a round did. */
export interface FanOutRound {
  /** A webhook may have more to fan out (its round reached FAN_OUT_BATCH events). */
  more: boolean;
  /** Deliveries were left pending without an attempt, for the claim rounds. */
  unsent: boolean;
}

/**
 * Fans out the organisation's numbered events to its webhooks behind the feed, making each event's first attempt.
 * @throws the database's error (the webhook's lease is released; its range stays for the next round).
 */
export async function fanOutRound(deps: FanOutDeps, orgId: string): Promise<FanOutRound> {
  const leased = await store.leaseBehind(deps.db, orgId, deps.leaseSeconds);
  const rounds = await Promise.all(leased.map((w) => fanOutWebhook(deps, w)));
  return { more: rounds.some((r) => r.more), unsent: rounds.some((r) => r.unsent) };
}

/** One webhook's round; see the module comment. */
async function fanOutWebhook(deps: FanOutDeps, webhook: store.LeasedWebhook): Promise<FanOutRound> {
  const { db } = deps;
  // A run ends well inside the lease: past it, another process may take the range and send it in parallel.
  const until = Date.now() + (deps.leaseSeconds * 1000) / 2;
  const upto = Math.min(webhook.head, webhook.lastSeq + store.FAN_OUT_BATCH);
  try {
    // Feed numbers are dense: the range holds `upto - lastSeq` events, of which those of the subscribed types.
    const range = upto - webhook.lastSeq;
    const events = await eventsAfter(db, webhook.orgId, webhook.lastSeq, range, webhook.subscribedEvents, upto);
    const createdAt = new Date();
    const lanes = lanesOf(events);
    const busy = new Set(await store.busyLanes(db, webhook.id, [...lanes.keys()]));
    // Time-ordered: each round's rows go to the primary key's last pages, not to random ones (whose first change
    // after a checkpoint writes the whole page to the WAL).
    const ids = new Map(events.map((e) => [e.id, timeOrderedId()]));
    const outcomes = new Map<string, Settled>();
    const free = [...lanes].filter(([lane]) => !busy.has(lane)).map(([, run]) => run);
    await mapLimit(free, deps.concurrency, async (run) => {
      for (const event of run) {
        if (Date.now() > until) return;
        const outcome = await deps.send(webhook, event, ids.get(event.id)!, createdAt);
        outcomes.set(event.id, outcome);
        if (outcome.state === 'pending') return;
      }
    });
    const rows = events.map((e) => fannedOut(e, ids.get(e.id)!, outcomes.get(e.id), createdAt));
    const settled = [...outcomes.values()];
    // A fan-out lost in a database crash is done again (its cursor is lost with it): no need to wait for the disk.
    const recorded = await transactionNotWaitingForDisk(db, async (tx) => {
      if (!(await store.recordFanOut(tx, webhook, upto, createdAt, rows))) return false;
      await markWebhooks(tx, settled);
      return true;
    });
    if (recorded) for (const s of settled) if (s.nextAt) deps.retryAt(s.nextAt.getTime());
    return { more: upto < webhook.head, unsent: recorded && rows.some((r) => r.attempts === 0) };
  } catch (err) {
    await store.releaseLease(db, webhook).catch(() => {});
    throw err;
  }
}

/** The events grouped by lane (the individual, '' for events about none), each in `seq` order. */
function lanesOf(events: FeedRow[]): Map<string, FeedRow[]> {
  return groupBy(events, (e) => e.subject ?? '');
}

/** The delivery row of one event: finished or retried after its first attempt, or pending unsent. */
function fannedOut(event: FeedRow, id: string, outcome: Settled | undefined, createdAt: Date): store.FannedOut {
  const base = { id, eventId: event.id, eventType: event.type, lane: event.subject ?? '' };
  if (!outcome) return { ...base, state: 'pending', attempts: 0, nextAt: createdAt, finishedAt: null, attemptLog: [] };
  return {
    ...base,
    state: outcome.state,
    attempts: 1,
    nextAt: outcome.nextAt ?? outcome.at,
    finishedAt: outcome.state === 'pending' ? null : outcome.at,
    attemptLog: [attemptRecord(outcome)],
  };
}
