/**
 * The delivery of organisation events to webhooks (docs/events.md "Delivery guarantees"; docs/decisions/0032-event-webhooks.md).
 *
 * 1. Fan-out: once the sequencer has numbered an organisation's events (`EventSequencer.onNumbered`), each enabled
 *    webhook's events after its `last_seq` become pending deliveries of the types it subscribed to, in one
 *    transaction that moves `last_seq`: an event is fanned out once, and none is skipped.
 * 2. Claim: due deliveries are taken under a lease (`FOR UPDATE SKIP LOCKED`), only the oldest pending delivery of
 *    each lane (one individual's events), so that a later event of an individual is not sent before the earlier one
 *    is acknowledged or given up, while other individuals' go on.
 * 3. Attempt and settle: each is signed and sent (attempt.ts); the outcomes are written together.
 *
 * Every process runs it; a process that dies leaves its leased deliveries to others once the lease ends, and its
 * un-fanned events to any process's sweep, so that a committed change is delivered at least once.
 */
import { randomUUID } from 'node:crypto';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import type { EventSequencer } from '../../platform/events/sequencer.js';
import { PostCommitWorker } from '../../platform/jobs/post-commit.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import type { OutboundPolicy } from '../../platform/net/outbound.js';
import { mapLimit } from '../../platform/util/pool.js';
import { cloudEventOf, eventSource } from '../events/service.js';
import { attemptDelivery, type RetryPolicy } from './attempt.js';
import * as deliveries from './deliveries-store.js';
import { EVENT_WEBHOOK_SECRET_PURPOSE } from './signing.js';
import * as store from './store.js';

/** Deliveries claimed per round (count). */
const CLAIM = 128;
/** Deliveries in flight at once per process (count). */
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

/** Fans out, claims, sends and settles event webhook deliveries in this process. */
export class WebhookDispatcher {
  private readonly fanOut: PostCommitWorker;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private ticks = 0;
  private onError: (err: unknown) => void = () => {};
  private readonly secrets = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly mailer: Mailer,
    private readonly opts: DispatcherOptions,
  ) {
    this.fanOut = new PostCommitWorker(
      {
        batch: async (orgId) => {
          // Every numbering wakes this, webhooks or not: an organisation with none behind costs one read, no transaction.
          if (!(await deliveries.isBehind(db, orgId))) return 0;
          const more = await db.transaction((tx) => deliveries.fanOut(tx, orgId));
          this.kick();
          return more ? 1 : 0;
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
  start(sequencer: EventSequencer, onError: (err: unknown) => void): void {
    this.onError = onError;
    sequencer.onNumbered((orgId) => this.fanOut.wake(orgId));
    this.fanOut.startSweep(1, onError);
    this.timer = setInterval(() => {
      this.kick();
      const every = Math.max(1, Math.min(DISABLE_CHECK_TICKS, Math.floor(this.opts.disableAfterSeconds / 10)));
      if (++this.ticks % every === 0) this.disableFailing().catch(onError);
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
    await this.fanOut.stop();
    await this.running;
  }

  /**
   * Disables the webhooks whose attempts have all failed for `disableAfterSeconds`, and mails their organisation's
   * Owners (docs/events.md "Retries").
   * @returns the IDs of the webhooks it disabled.
   * @throws the database's error; a mail that cannot be sent is reported to `onError` only.
   */
  async disableFailing(): Promise<string[]> {
    const cutoff = new Date(Date.now() - this.opts.disableAfterSeconds * 1000);
    const disabled = await store.disableFailing(this.db, cutoff);
    for (const w of disabled) {
      for (const to of await this.opts.owners(w.orgId)) {
        await this.mailer
          .send({
            to,
            subject: 'A webhook of your organisation was disabled',
            text:
              `Every delivery to the webhook ${w.payloadUrl} (ID ${w.id}) has failed since ` +
              `${w.failingSince?.toISOString()}, so Assent has disabled it.\n\n` +
              'Its failed deliveries stay in its deliveries log and can be redelivered once the receiver works; ' +
              'enable the webhook again to receive new events. Events of the time it was disabled can be read ' +
              'from the organisation’s change feed.\n',
            messageId: `webhook-disabled.${w.id}.${w.updatedAt.getTime()}@assent`,
          })
          .catch(this.onError);
      }
    }
    return disabled.map((w) => w.id);
  }

  /**
   * Claims and delivers rounds until no delivery is due. A round that took fewer than CLAIM still goes on: settling a
   * lane's head makes its next delivery due.
   */
  private async deliverAll(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const claimed = await deliveries.claimDue(this.db, this.opts.leaseSeconds, CLAIM);
      if (claimed.length === 0) return;
      const settled = await this.deliver(claimed);
      await this.db.transaction((tx) => deliveries.settle(tx, settled));
    }
  }

  /** Builds, signs and sends one round's deliveries. */
  private async deliver(claimed: deliveries.ClaimedDelivery[]): Promise<deliveries.Settled[]> {
    const targets = new Map(
      (await store.webhookTargets(this.db, [...new Set(claimed.map((c) => c.webhookId))])).map((w) => [w.id, w]),
    );
    const events = new Map(
      (
        await deliveries.outboxRows(
          this.db,
          claimed.filter((c) => c.body === null).map((c) => c.eventId),
        )
      ).map((e) => [e.id, e]),
    );
    return mapLimit(claimed, CONCURRENCY, async (c) => {
      const target = targets.get(c.webhookId)!;
      const event = events.get(c.eventId);
      const body =
        c.body ??
        JSON.stringify(cloudEventOf({ ...event!, seq: Number(event!.seq) }, eventSource(this.opts.publicUrl, c.orgId)));
      return attemptDelivery(
        {
          deliveryId: c.id,
          webhookId: c.webhookId,
          attempt: c.attempt,
          url: target.payloadUrl,
          contentType: target.contentType,
          secrets: this.liveSecrets(target),
          eventId: c.eventId,
          body,
          createdAt: c.createdAt,
        },
        this.opts.policy,
        this.opts.retry,
      );
    });
  }

  /**
   * Sends a `webhook.ping` event to the webhook now, once (no retries), and logs it as a delivery.
   * @returns the delivery's ID.
   * @throws the database's error.
   */
  async ping(webhook: store.WebhookTarget): Promise<string> {
    const [eventId, deliveryId, now] = [randomUUID(), randomUUID(), new Date()];
    const body = JSON.stringify({
      specversion: '1.0',
      id: eventId,
      type: 'webhook.ping',
      source: eventSource(this.opts.publicUrl, webhook.orgId),
      time: now.toISOString(),
      datacontenttype: 'application/json',
      data: { WebhookID: webhook.id, OrganizationID: webhook.orgId },
    });
    await deliveries.insertDelivery(this.db, {
      id: deliveryId,
      webhookId: webhook.id,
      orgId: webhook.orgId,
      eventId,
      eventType: 'webhook.ping',
      lane: deliveryId,
      state: 'pending',
      attempts: 1,
      nextAt: now,
      // Held by this request for its attempt: no delivery round claims it meanwhile.
      leasedUntil: new Date(now.getTime() + 3600_000),
      body,
      createdAt: now,
    });
    const target = { deliveryId, webhookId: webhook.id, attempt: 1, url: webhook.payloadUrl };
    const settled = await attemptDelivery(
      {
        ...target,
        contentType: webhook.contentType,
        secrets: this.liveSecrets(webhook),
        eventId,
        body,
        createdAt: now,
      },
      this.opts.policy,
      { firstRetrySeconds: 1, retryWindowSeconds: 0 },
    );
    await this.db.transaction((tx) => deliveries.settle(tx, [settled]));
    return deliveryId;
  }

  /**
   * The webhook's live secrets, current first: the previous one too until its grace period ends.
   * @param target - the webhook.
   */
  liveSecrets(target: store.WebhookTarget): string[] {
    const live = [this.open(target.secretSealed)];
    if (target.previousSecretSealed && target.previousSecretUntil && target.previousSecretUntil.getTime() > Date.now())
      live.push(this.open(target.previousSecretSealed));
    return live;
  }

  /** Opens a sealed secret, once per process and sealed value. */
  private open(sealed: string): string {
    let secret = this.secrets.get(sealed);
    if (secret === undefined) {
      secret = this.master.open(sealed, EVENT_WEBHOOK_SECRET_PURPOSE);
      if (this.secrets.size > 10_000) this.secrets.clear();
      this.secrets.set(sealed, secret);
    }
    return secret;
  }
}
