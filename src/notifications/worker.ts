/**
 * The worker of the special consent request (SPEC 4.3, the 202 operation; issue #3), on the
 * pg-boss queues of `jobs/queue.ts`. A request is processed in batches:
 * 1. claim: under the job's row lock, find the next individuals to notify (a keyset after the
 *    job's cursor), insert one delivery row each, keyed (job, individual), move the cursor, and
 *    enqueue the next batch, all in one transaction;
 * 2. send: deliver the batch's pending rows, then mark them sent, or hand failures to the retry
 *    queue (exponential backoff), which marks them failed after its last retry;
 * 3. complete: when the scan is done and nothing is pending or retrying.
 * A process killed mid-batch leaves the batch's pg-boss job active; its lease runs out, it runs
 * again elsewhere, and re-sends only the rows still `pending`, under the same idempotency key.
 */
import type { FastifyBaseLogger } from 'fastify';
import type PgBoss from 'pg-boss';
import type { Db } from '../db/open.js';
import { rawIn } from '../db/open.js';
import { QUEUES, type Queue } from '../jobs/queue.js';
import { safeErrorMessage } from '../util/errors.js';
import { mapLimit } from '../util/pool.js';
import type { JobContext, NotificationSetup } from './setup.js';
import * as store from './store.js';
import { chooseTransport, type DeliveryOutcome, type Transport } from './transports.js';
import { queueJobId } from './ids.js';

/** A batch job's data. */
export interface BatchData {
  jobId: string;
  /** 1-based batch number. */
  batch: number;
}
/** A retry job's data. */
export interface RetryData {
  jobId: string;
  userId: string;
}

/** Deliveries in flight at once per batch (count). */
const SEND_CONCURRENCY = 64;
/**
 * Deliveries settled together (count). After a crash, what was in flight or not yet settled is sent
 * again: at most SEND_CONCURRENCY + SETTLE_EVERY per worker.
 */
const SETTLE_EVERY = 64;
/** Batch workers per process (count): one claims while another sends. */
const BATCH_WORKERS = 2;

/** Runs special consent requests. */
export class ConsentRequestWorker {
  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    private readonly setup: NotificationSetup,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** pg-boss IDs of this process's batch workers. */
  private readonly batchWorkers: string[] = [];

  /** Starts fetching work from both queues. */
  async start(): Promise<void> {
    // Work queued in this process wakes these workers at once (`wake`); the poll only finds work
    // queued by other processes, or retries that came due.
    const options = { batchSize: 1, includeMetadata: true as const, pollingIntervalSeconds: 2 };
    for (let i = 0; i < BATCH_WORKERS; i++) {
      this.batchWorkers.push(await this.queue.work<BatchData>(QUEUES.consentRequestBatch, options, async ([job]) => this.guard(job!, () => this.runBatch(job!.data))));
    }
    await this.queue.work<RetryData>(QUEUES.consentRequestRetry, { ...options, batchSize: 16 }, async (jobs) => {
      await Promise.all(jobs.map((job) => this.runRetry(job)));
    });
  }

  /**
   * Wakes this process's idle batch workers, so that a batch just enqueued here starts now rather
   * than at the next poll (other processes find it at their next poll, within 2 s).
   */
  wake(): void {
    for (const id of this.batchWorkers) this.queue.notifyWorker(id);
  }

  /** Marks the request failed when its batch has used its last retry; never lets it stop silently. */
  private async guard(job: PgBoss.JobWithMetadata<BatchData>, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (err) {
      const last = job.retryCount >= job.retryLimit;
      this.log.error({ err: safeErrorMessage(err), jobId: job.data.jobId, batch: job.data.batch, retry: job.retryCount, last }, 'consent request batch failed');
      if (last) await store.failJob(this.db, job.data.jobId, `batch ${job.data.batch} failed after ${job.retryCount + 1} attempts: ${safeErrorMessage(err)}`);
      throw err;
    }
  }

  private async runBatch({ jobId, batch }: BatchData): Promise<void> {
    const job = await store.findJobById(this.db, jobId);
    if (!job || job.state === 'completed' || job.state === 'failed') return;
    const ctx = await this.setup.context(job);
    const available = { webhook: ctx.transports.webhook !== undefined, email: ctx.transports.email !== undefined };
    const enqueued = await this.db.transaction(async (tx) => {
      const locked = await store.lockJob(tx, jobId);
      if (!locked || locked.batchSeq >= batch || locked.scanDone) return false; // claimed before a crash: just send
      if (locked.batchSeq < batch - 1) throw new Error(`batch ${batch} ran before batch ${batch - 1} was claimed`);
      const limit = this.setup.batchSize;
      const page = await store.nextRecipients(tx, { ...ctx.scope, after: locked.cursor, limit });
      const scanDone = page.done;
      const claims = page.recipients.map((r) => ({ userId: r.userId, transport: chooseTransport(available, r) }));
      await store.claimBatch(tx, jobId, batch, claims, page.cursor, scanDone);
      if (!scanDone) {
        await this.queue.send(QUEUES.consentRequestBatch, { jobId, batch: batch + 1 }, { id: queueJobId(jobId, `batch.${batch + 1}`), db: rawIn(tx) });
      }
      return !scanDone;
    });
    if (enqueued) this.wake(); // the next batch is claimed while this one sends
    const pending = await store.pendingOfBatch(this.db, jobId, batch);
    // Sends never wait for the database: outcomes are settled behind them, SETTLE_EVERY at a time,
    // so a crash re-sends at most what was in flight or unsettled, never the whole batch.
    let buffered: Array<{ delivery: store.PendingDelivery; outcome: DeliveryOutcome }> = [];
    let settling = Promise.resolve();
    let settleError: unknown;
    const flush = () => {
      const chunk = buffered;
      buffered = [];
      // Caught here and rethrown below: a rejection left pending while sends go on would crash the process.
      settling = settling.then(() => this.settleChunk(ctx, jobId, chunk)).catch((err) => void (settleError ??= err));
    };
    await mapLimit(pending, SEND_CONCURRENCY, async (delivery) => {
      const outcome = await this.transportOf(ctx.transports, delivery.transport).deliver(ctx.notification, delivery);
      // Read `buffered` only after the await: a flush meanwhile replaced it (`buffered.push(await …)`
      // would push into the chunk already handed to the settler, and the outcome would be lost).
      buffered.push({ delivery, outcome });
      if (buffered.length >= SETTLE_EVERY) flush();
    });
    flush();
    await settling;
    if (settleError !== undefined) throw settleError; // the batch runs again; unsettled rows are still pending
    await store.completeIfDone(this.db, jobId);
  }

  private async settleChunk(ctx: JobContext, jobId: string, chunk: Array<{ delivery: store.PendingDelivery; outcome: DeliveryOutcome }>): Promise<void> {
    if (chunk.length === 0) return;
    await this.record(ctx.orgId, jobId, chunk.map((c) => c.delivery), chunk.map((c) => c.outcome), 1, ctx.webhookUrl);
    const sent = chunk.filter((c) => c.outcome.ok).map((c) => c.delivery.userId);
    const failed = chunk.filter((c) => !c.outcome.ok);
    await store.settle(this.db, jobId, sent, ['pending'], 'sent', null);
    if (failed.length > 0) await this.scheduleRetries(jobId, failed.map((c) => c.delivery.userId), failed[0]!.outcome.error ?? 'failed');
  }

  private async scheduleRetries(jobId: string, userIds: string[], error: string): Promise<void> {
    if (this.setup.retries === 0) {
      await store.settle(this.db, jobId, userIds, ['pending'], 'failed', error);
      return;
    }
    await this.db.transaction(async (tx) => {
      await store.settle(tx, jobId, userIds, ['pending'], 'retrying', error);
      await this.queue.insert(
        userIds.map((userId) => ({ name: QUEUES.consentRequestRetry, id: queueJobId(jobId, `retry.${userId}`), data: { jobId, userId }, startAfter: new Date(Date.now() + this.setup.retryDelaySeconds * 1000) })),
        { db: rawIn(tx) },
      );
    });
  }

  private async runRetry(job: PgBoss.JobWithMetadata<RetryData>): Promise<void> {
    const { jobId, userId } = job.data;
    const delivery = await store.retryingDelivery(this.db, jobId, userId);
    const row = delivery && (await store.findJobById(this.db, jobId));
    if (!delivery || !row || row.state !== 'running') return;
    const ctx = await this.setup.context(row);
    const outcome = await this.transportOf(ctx.transports, delivery.transport).deliver(ctx.notification, delivery);
    await this.record(ctx.orgId, jobId, [delivery], [outcome], job.retryCount + 2, ctx.webhookUrl);
    if (outcome.ok) await store.settle(this.db, jobId, [userId], ['retrying'], 'sent', null);
    else if (job.retryCount >= job.retryLimit) await store.settle(this.db, jobId, [userId], ['retrying'], 'failed', outcome.error ?? 'failed');
    else throw new Error(outcome.error ?? 'delivery failed'); // pg-boss retries it after the next backoff
    await store.completeIfDone(this.db, jobId);
  }

  private transportOf(transports: { webhook?: Transport; email?: Transport }, name: 'webhook' | 'email'): Transport {
    const transport = transports[name];
    // The organisation removed the transport after the claim: nothing can deliver this any more.
    return transport ?? { name, deliver: async () => ({ ok: false, error: `the ${name} transport was removed`, durationMs: 0 }) };
  }

  private async record(orgId: string, jobId: string, deliveries: store.PendingDelivery[], outcomes: DeliveryOutcome[], attempt: number, url: string): Promise<void> {
    const rows = deliveries
      .map((d, i) => ({ d, o: outcomes[i]! }))
      .filter(({ d }) => d.transport === 'webhook')
      .map(({ d, o }) => ({ id: this.setup.attemptId(), orgId, jobId, userId: d.userId, url, attempt, status: o.status ?? null, error: o.error ?? null, durationMs: o.durationMs }));
    await store.logAttempts(this.db, rows);
  }
}
