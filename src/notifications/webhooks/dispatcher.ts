/**
 * The delivery of organisation events to webhooks (docs/events.md "Delivery guarantees"; docs/decisions/0032-event-webhooks.md).
 *
 * 1. Fan-out (fan-out.ts): once the sequencer has numbered an organisation's events (`EventSequencer.onNumbered`),
 *    each enabled webhook's events after its `last_seq` are taken under a lease on the webhook, sent once straight
 *    from the outbox (an individual's in order, individuals side by side), and recorded as one delivery each, finished
 *    or pending, in one transaction that moves `last_seq`: an event is fanned out once, and none is skipped.
 * 2. Claim: due lanes (one individual's pending deliveries to one webhook: retries, and the events that queued behind
 *    them) are taken under a lease on the lane's oldest pending delivery (`FOR UPDATE SKIP LOCKED`), each with the
 *    deliveries after its head: a run.
 * 3. Attempt: each lane's run is signed and sent in order, one at a time (attempt.ts), so that a later event of an
 *    individual is not sent before the earlier one is acknowledged or given up; a retry ends the run there. Lanes go
 *    on side by side.
 * 4. Settle: the round's outcomes are written together.
 *
 * Every process runs it; a process that dies leaves its leased deliveries to others once the lease ends, and its
 * un-fanned events to any process's sweep, so that a committed change is delivered at least once.
 */
import { transactionNotWaitingForDisk } from '../../platform/db/durability.js';
import type { Db } from '../../platform/db/open.js';
import type { EventSequencer } from '../../platform/events/sequencer.js';
import { PostCommitWorker } from '../../platform/jobs/post-commit.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import type { OutboundPolicy } from '../../platform/net/outbound.js';
import { groupBy } from '../../platform/util/group.js';
import { mapLimit } from '../../platform/util/pool.js';
import { cloudEventOf, eventSource } from '../events/service.js';
import { eventsByIds, type FeedRow } from '../events/store.js';
import { attemptDelivery, type RetryPolicy } from './attempt.js';
import * as deliveries from './deliveries-store.js';
import { disableFailing } from './disabling.js';
import { type FanOutDeps, fanOutRound } from './fan-out.js';
import type { WebhookSecrets } from './secrets.js';
import * as store from './store.js';

/**
 * What one round claims (counts): lanes, and deliveries per lane. A lane's run goes out one delivery after the other
 * without a database round between them; many lanes (individuals) fill a round by breadth.
 */
const CLAIM: deliveries.ClaimSize = { lanes: 512, depth: 16 };
/** Lanes sending at once per process (count). */
const CONCURRENCY = 64;
/** How long a wake waits before fanning out (milliseconds), so that the events of that moment go together. */
const COALESCE_MS = 5;
/** Most ticks (one a second) between two checks for webhooks to disable; fewer for a short disable window. */
const DISABLE_CHECK_TICKS = 60;

/** What the dispatcher needs. */
export interface DispatcherOptions {
  policy: OutboundPolicy;
  retry: RetryPolicy;
  /** A webhook failing this long is disabled (seconds). */
  disableAfterSeconds: number;
  /** A claimed delivery is another process's to take after this (seconds). */
  leaseSeconds: number;
  /** `ASSENT_PUBLIC_URL`, for the events' `source`. */
  publicUrl: string;
  /** The e-mail addresses of an organisation's Owners. */
  owners: (orgId: string) => Promise<string[]>;
}

/** What delivers event webhooks: the dispatcher itself, or the thread it runs in (thread.ts). */
export interface WebhookDelivery {
  /**
   * Starts delivering: woken by the sequencer's numberings, and once a second.
   * @param onError - receives a failed round (the work stays for the next one).
   */
  start(sequencer: Pick<EventSequencer, 'onNumbered'>, onError: (err: unknown) => void): void;
  /** Starts a delivery round now (a redelivery is due). */
  kick(): void;
  /** Stops delivering, waiting for the round under way. */
  stop(): Promise<void>;
}

/** Fans out, claims, sends and settles event webhook deliveries on this thread. */
export class WebhookDispatcher implements WebhookDelivery {
  private readonly fanOut: PostCommitWorker;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  /** The next retry this process scheduled, and when it is due (epoch milliseconds). */
  private retryTimer: { handle: NodeJS.Timeout; at: number } | undefined;
  private ticks = 0;
  private onError: (err: unknown) => void = () => {};

  constructor(
    private readonly db: Db,
    private readonly secrets: WebhookSecrets,
    private readonly mailer: Mailer,
    private readonly opts: DispatcherOptions,
  ) {
    const fanOutDeps: FanOutDeps = {
      db,
      leaseSeconds: opts.leaseSeconds,
      concurrency: CONCURRENCY,
      send: (target, event, deliveryId, createdAt) =>
        this.send(target, event, { id: deliveryId, eventId: event.id, attempt: 1, body: null, createdAt }),
      retryAt: (at) => this.retryAt(at),
    };
    this.fanOut = new PostCommitWorker(
      {
        batch: async (orgId) => {
          // Every numbering wakes this, webhooks or not: an organisation with none behind costs one statement that
          // matches no row (the lease), no write.
          const round = await fanOutRound(fanOutDeps, orgId);
          // Deliveries left pending unsent (behind an earlier delivery of their lane, or a run cut short) go by claim
          // rounds; retries wake them at their time.
          if (round.unsent) this.kick();
          return round.more ? 1 : 0;
        },
        keysWithWork: () => deliveries.organisationsBehind(db),
      },
      1,
      COALESCE_MS,
    );
  }

  /**
   * Listens to the sequencer and starts the once-a-second round: fan-out of what no wake covered, due retries, and
   * (every minute, or every tenth of a shorter window) the disabling of webhooks failing for `disableAfterSeconds`.
   * @param onError - receives a failed round (the work stays for the next one).
   */
  start(sequencer: Pick<EventSequencer, 'onNumbered'>, onError: (err: unknown) => void): void {
    this.onError = onError;
    sequencer.onNumbered((orgId) => this.fanOut.wake(orgId));
    this.fanOut.startSweep(1, onError);
    this.timer = setInterval(() => {
      this.kick();
      const every = Math.max(1, Math.min(DISABLE_CHECK_TICKS, Math.floor(this.opts.disableAfterSeconds / 10)));
      if (++this.ticks % every === 0)
        disableFailing(this.db, this.mailer, this.opts.owners, this.opts.disableAfterSeconds, onError).catch(onError);
    }, 1000);
    this.timer.unref();
  }

  /** Starts a delivery round now, or another after the one under way. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.deliverAll()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Stops the rounds and waits for the one under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.retryTimer?.handle);
    await this.fanOut.stop();
    await this.running;
  }

  /**
   * Claims and delivers rounds until no delivery is due. A round that took less than a full claim still goes on:
   * settling a lane's run makes its next delivery due.
   */
  private async deliverAll(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      // A claim or a settlement lost in a database crash means deliveries sent again (at least once, same
      // webhook-id): they need not wait for the disk, and then do not hold up the consent changes' commits.
      const claimed = await transactionNotWaitingForDisk(this.db, (tx) =>
        deliveries.claimDue(tx, this.opts.leaseSeconds, CLAIM),
      );
      if (claimed.length === 0) return;
      const settled = await this.deliver(claimed);
      await transactionNotWaitingForDisk(this.db, (tx) => deliveries.settle(tx, settled));
      for (const r of settled) if (r.nextAt) this.retryAt(r.nextAt.getTime());
    }
  }

  /**
   * Starts a round when a retry this process scheduled is due, so that it goes out at its time rather than at the
   * next once-a-second round (which remains for the retries other processes scheduled).
   */
  private retryAt(at: number): void {
    if (this.stopped || (this.retryTimer && this.retryTimer.at <= at)) return;
    clearTimeout(this.retryTimer?.handle);
    const handle = setTimeout(
      () => {
        this.retryTimer = undefined;
        this.kick();
      },
      Math.max(0, at - Date.now()),
    );
    handle.unref();
    this.retryTimer = { handle, at };
  }

  /**
   * Builds, signs and sends one round's deliveries: each lane's run in `ord` order, one at a time, until a delivery
   * is to be retried (it stays the lane's head, and the rest of the run stays as it was, unsent) or half the lease
   * has gone by.
   */
  private async deliver(claimed: deliveries.ClaimedDelivery[]): Promise<deliveries.Settled[]> {
    const targets = new Map(
      (await store.webhookTargets(this.db, [...new Set(claimed.map((c) => c.webhookId))])).map((w) => [w.id, w]),
    );
    const events = new Map(
      (
        await eventsByIds(
          this.db,
          claimed.filter((c) => c.body === null).map((c) => c.eventId),
        )
      ).map((e) => [e.id, e]),
    );
    const settled: deliveries.Settled[] = [];
    // A run ends well inside the head's lease: past it, another process may take the lane and send in parallel.
    const until = Date.now() + (this.opts.leaseSeconds * 1000) / 2;
    await mapLimit(lanesOf(claimed), CONCURRENCY, async (run) => {
      for (const c of run) {
        if (!c.counted && Date.now() > until) return;
        const outcome = await this.send(targets.get(c.webhookId)!, events.get(c.eventId), c);
        settled.push({ ...outcome, counted: c.counted });
        if (outcome.state === 'pending') return;
      }
    });
    return settled;
  }

  /** Builds the body (an event's from its outbox row, a ping's as stored), signs it and sends it. */
  private send(
    target: store.WebhookTarget,
    event: FeedRow | undefined,
    c: Pick<deliveries.ClaimedDelivery, 'id' | 'eventId' | 'attempt' | 'body' | 'createdAt'>,
  ): Promise<deliveries.Settled> {
    const body = c.body ?? JSON.stringify(cloudEventOf(event!, eventSource(this.opts.publicUrl, target.orgId)));
    return attemptDelivery(
      {
        deliveryId: c.id,
        webhookId: target.id,
        attempt: c.attempt,
        url: target.payloadUrl,
        contentType: target.contentType,
        secrets: this.secrets.live(target),
        eventId: c.eventId,
        body,
        createdAt: c.createdAt,
      },
      this.opts.policy,
      this.opts.retry,
    );
  }
}

/** The claimed deliveries grouped by webhook and lane, each group in `ord` order (the order to send them in). */
function lanesOf(claimed: deliveries.ClaimedDelivery[]): deliveries.ClaimedDelivery[][] {
  const lanes = groupBy(claimed, (c) => `${c.webhookId} ${c.lane}`);
  return [...lanes.values()].map((run) => run.sort((a, b) => a.ord - b.ord));
}
