/**
 * Retries of failed deliveries of the special consent request (docs/api.md "Permissions and consents"; docs/notifications.md "Special consent
 * request", Webhook). Attempt n + 1 of a delivery that failed at attempt n is a job of the retry
 * queue due ASSENT_WEBHOOK_RETRY_DELAY_SECONDS × 2^(n−1) seconds later; after attempt
 * 1 + ASSENT_WEBHOOK_RETRIES the delivery is `failed`.
 *
 * Retries drain at the rate of first attempts: each worker takes up to ASSENT_NOTIFY_BATCH_SIZE due
 * retries at once and sends them through the same pipeline (`send.ts`), fetches again at once after
 * a full take, and the process that scheduled a retry wakes its workers when it comes due instead
 * of waiting for the poll (which only finds retries scheduled by other processes).
 */
import type PgBoss from 'pg-boss';
import { type Db, rawIn } from '../platform/db/open.js';
import { QUEUES, type Queue } from '../platform/jobs/queue.js';
import { groupBy } from '../platform/util/group.js';
import { completeJobIfDone } from './completion.js';
import { queueJobId } from './ids.js';
import { type Send, type Sent, sendAll } from './send.js';
import type { NotificationSetup } from './setup.js';
import * as store from './store.js';
import { clearDeviceTokens } from './transports/store.js';

/** A retry job's data. */
export interface RetryData {
  jobId: string;
  userId: string;
  /** The attempt this job makes (2 for the first retry); absent in jobs queued before it was added. */
  attempt?: number;
}

/** Retry workers per process (count), like the batch workers: one fetches while another sends. */
const RETRY_WORKERS = 2;
/** Due times are woken for in steps of this (milliseconds), so a burst of retries sets few timers. */
const WAKE_GRAIN_MS = 100;
/** Woken this long after a retry's due time, so that the database's clock has passed it too (milliseconds). */
const DUE_MARGIN_MS = 20;

/** Schedules, and works, the retries of failed deliveries. */
export class RetryWorker {
  private readonly workers: string[] = [];
  /** Pending wake-ups by due time (ms since the epoch, rounded up to WAKE_GRAIN_MS). */
  private readonly timers = new Map<number, NodeJS.Timeout>();

  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    private readonly setup: NotificationSetup,
  ) {}

  /** Starts this process's retry workers. */
  async start(): Promise<void> {
    const options = { batchSize: this.setup.batchSize, includeMetadata: true as const, pollingIntervalSeconds: 2 };
    for (let i = 0; i < RETRY_WORKERS; i++) {
      this.workers.push(
        await this.queue.work<RetryData>(QUEUES.consentRequestRetry, options, (jobs) => this.run(jobs)),
      );
    }
  }

  /** Cancels pending wake-ups (the queue itself is stopped by its owner). */
  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /**
   * Settles the deliveries that failed at `attempt`: schedules attempt `attempt + 1`, or marks them
   * `failed` when `attempt` was the last (1 + ASSENT_WEBHOOK_RETRIES).
   * @param from - the state they are in now (`pending` after a first attempt, else `retrying`).
   * @param error - the reason stored with them.
   * @param notBeforeSeconds - the service's `Retry-After` (seconds): the retry is due no earlier.
   */
  async schedule(
    jobId: string,
    userIds: string[],
    from: 'pending' | 'retrying',
    attempt: number,
    error: string,
    notBeforeSeconds = 0,
  ): Promise<void> {
    if (userIds.length === 0) return;
    if (attempt > this.setup.retries) {
      await store.settle(this.db, jobId, userIds, [from], 'failed', error);
      return;
    }
    const next = attempt + 1;
    const due = Date.now() + Math.max(this.setup.retryDelaySeconds * 2 ** (attempt - 1), notBeforeSeconds) * 1000;
    await this.db.transaction(async (tx) => {
      await store.settle(tx, jobId, userIds, [from], 'retrying', error);
      await this.queue.insert(
        userIds.map((userId) => ({
          name: QUEUES.consentRequestRetry,
          id: queueJobId(jobId, `retry.${userId}.${next}`),
          data: { jobId, userId, attempt: next },
          startAfter: new Date(due),
        })),
        { db: rawIn(tx) },
      );
    });
    this.wakeAt(due);
  }

  /** Wakes the workers just after `due` (ms since the epoch). */
  private wakeAt(due: number): void {
    const at = Math.ceil(due / WAKE_GRAIN_MS) * WAKE_GRAIN_MS;
    if (this.timers.has(at)) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(at);
        this.wake();
      },
      Math.max(0, at - Date.now()) + DUE_MARGIN_MS,
    );
    timer.unref();
    this.timers.set(at, timer);
  }

  private wake(): void {
    for (const id of this.workers) this.queue.notifyWorker(id);
  }

  /** Sends one take of due retries, grouped by request. */
  private async run(jobs: PgBoss.JobWithMetadata<RetryData>[]): Promise<void> {
    const byRequest = new Map<string, RetryData[]>();
    for (const { data } of jobs) byRequest.set(data.jobId, [...(byRequest.get(data.jobId) ?? []), data]);
    for (const [jobId, retries] of byRequest) await this.runRequest(jobId, retries);
    // A full take: more may be due; fetch again now rather than after the poll interval.
    if (jobs.length >= this.setup.batchSize) this.wake();
  }

  private async runRequest(jobId: string, retries: RetryData[]): Promise<void> {
    const row = await store.findJobById(this.db, jobId);
    if (row?.state !== 'running') return;
    const open = await store.retryingDeliveries(
      this.db,
      jobId,
      retries.map((r) => r.userId),
    );
    const wanted = new Map(retries.map((r) => [r.userId, r.attempt]));
    // A retry job run twice (its take failed on a database error and pg-boss ran it again) finds
    // its delivery already past that attempt, and sends nothing.
    const sends: Send[] = open
      .map((delivery) => ({ delivery, attempt: wanted.get(delivery.userId) ?? delivery.attempts + 1 }))
      .filter((s) => s.attempt === s.delivery.attempts + 1);
    if (sends.length === 0) return;
    const ctx = await this.setup.context(row);
    await sendAll(this.db, this.setup, ctx, sends, (chunk) => this.settle(jobId, chunk, 'retrying'));
    await completeJobIfDone(this.db, jobId);
  }

  /**
   * Settles a chunk of attempted deliveries: the delivered ones `sent`; those whose device token the
   * push service reported gone `failed` at once, their token cleared in the same transaction
   * (docs/notifications.md "Mobile push"); the others retried (no earlier than a `Retry-After`) or,
   * after their last attempt, `failed`.
   * @param from - the state the chunk's deliveries are in (`pending` for first attempts).
   */
  async settle(jobId: string, chunk: Sent[], from: 'pending' | 'retrying'): Promise<void> {
    const sent = chunk.filter((c) => c.outcome.ok).map((c) => c.delivery.userId);
    await store.settle(this.db, jobId, sent, [from], 'sent', null);
    const gone = chunk.filter((c) => !c.outcome.ok && c.outcome.gone);
    if (gone.length > 0) {
      await this.db.transaction(async (tx) => {
        const ids = gone.map((c) => c.delivery.userId);
        await store.settle(tx, jobId, ids, [from], 'failed', gone[0]!.outcome.error ?? 'device token gone');
        await clearDeviceTokens(
          tx,
          gone.map((c) => ({ userId: c.delivery.userId, token: c.delivery.token })),
        );
      });
    }
    const groups = groupBy(
      chunk.filter((c) => !c.outcome.ok && !c.outcome.gone),
      (c) => `${c.attempt}.${c.outcome.retryAfterSeconds ?? 0}`,
    );
    for (const these of groups.values()) {
      const { attempt, outcome } = these[0]!;
      await this.schedule(
        jobId,
        these.map((c) => c.delivery.userId),
        from,
        attempt,
        outcome.error ?? 'failed',
        outcome.retryAfterSeconds ?? 0,
      );
    }
  }
}
