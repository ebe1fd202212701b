/**
 * The worker of the special consent request (docs/api.md "Permissions and consents", the 202 operation), on the pg-boss queues of
 * `platform/jobs/queue.ts`. A request is processed in batches:
 * 1. claim: under the job's row lock, find the next individuals to notify (a keyset after the
 *    job's cursor), insert one delivery row each, keyed (job, individual), move the cursor, and
 *    enqueue the next batch, all in one transaction;
 * 2. send: deliver the batch's pending rows through `send.ts` (each webhook attempt logged before it
 *    is sent), then mark them sent, or hand failures to the retries (`retries.ts`);
 * 3. complete: when the scan is done and nothing is pending or retrying.
 * A process killed mid-batch leaves the batch's pg-boss job active; its lease runs out, it runs
 * again elsewhere, and re-sends only the rows still `pending`, under the same idempotency key.
 */
import type { FastifyBaseLogger } from 'fastify';
import type PgBoss from 'pg-boss';
import { type Db, rawIn } from '../platform/db/open.js';
import { QUEUES, type Queue } from '../platform/jobs/queue.js';
import { safeErrorMessage } from '../platform/util/errors.js';
import { completeJobIfDone } from './completion.js';
import { queueJobId } from './ids.js';
import type { RetryWorker } from './retries.js';
import { sendAll } from './send.js';
import type { NotificationSetup } from './setup.js';
import * as store from './store.js';
import { chooseTransport } from './transports/transports.js';

/** A batch job's data. */
export interface BatchData {
  jobId: string;
  /** 1-based batch number. */
  batch: number;
}

/** Batch workers per process (count): one claims while another sends. */
const BATCH_WORKERS = 2;

/** Why individuals are skipped when no transport at all is configured (the job's `SkippedReason`). */
export const NO_TRANSPORT =
  'The organisation has no notification transport: configure FCM, APNs, a webhook or e-mail at /notification-transports';
/**
 * Why individuals are skipped when no transport reaches them: no device the organisation can push
 * to, no webhook, and no e-mail address (or e-mail off).
 */
export const NO_ADDRESS =
  'No transport reaches these individuals: no device token for the push transports, no webhook, and no e-mail address';

/** Runs special consent requests. */
export class ConsentRequestWorker {
  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    private readonly setup: NotificationSetup,
    private readonly retries: RetryWorker,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** pg-boss IDs of this process's batch workers. */
  private readonly batchWorkers: string[] = [];

  /** Starts fetching batches, and the retry workers. */
  async start(): Promise<void> {
    // Work queued in this process wakes these workers at once (`wake`); the poll only finds work
    // queued by other processes.
    const options = { batchSize: 1, includeMetadata: true as const, pollingIntervalSeconds: 2 };
    for (let i = 0; i < BATCH_WORKERS; i++) {
      this.batchWorkers.push(
        await this.queue.work<BatchData>(QUEUES.consentRequestBatch, options, async ([job]) =>
          this.guard(job!, () => this.runBatch(job!.data)),
        ),
      );
    }
    await this.retries.start();
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
      this.log.error(
        { err: safeErrorMessage(err), jobId: job.data.jobId, batch: job.data.batch, retry: job.retryCount, last },
        'consent request batch failed',
      );
      if (last)
        await store.failJob(
          this.db,
          job.data.jobId,
          `batch ${job.data.batch} failed after ${job.retryCount + 1} attempts: ${safeErrorMessage(err)}`,
        );
      throw err;
    }
  }

  private async runBatch({ jobId, batch }: BatchData): Promise<void> {
    const job = await store.findJobById(this.db, jobId);
    if (!job || job.state === 'completed' || job.state === 'failed') return;
    const ctx = await this.setup.context(job);
    const t = ctx.transports;
    const available = { webhook: !!t.webhook, email: !!t.email, fcm: !!t.fcm, apns: !!t.apns };
    const enqueued = await this.db.transaction(async (tx) => {
      const locked = await store.lockJob(tx, jobId);
      if (!locked || locked.batchSeq >= batch || locked.scanDone) return false; // claimed before a crash: just send
      if (locked.batchSeq < batch - 1) throw new Error(`batch ${batch} ran before batch ${batch - 1} was claimed`);
      const limit = this.setup.batchSize;
      const page = await store.nextRecipients(tx, { ...ctx.scope, after: locked.cursor, limit });
      const scanDone = page.done;
      const claims = page.recipients.map((r) => ({ userId: r.userId, transport: chooseTransport(available, r) }));
      await store.claimBatch(
        tx,
        jobId,
        batch,
        claims,
        page.cursor,
        scanDone,
        Object.values(available).some(Boolean) ? NO_ADDRESS : NO_TRANSPORT,
      );
      if (!scanDone) {
        await this.queue.send(
          QUEUES.consentRequestBatch,
          { jobId, batch: batch + 1 },
          { id: queueJobId(jobId, `batch.${batch + 1}`), db: rawIn(tx) },
        );
      }
      return !scanDone;
    });
    if (enqueued) this.wake(); // the next batch is claimed while this one sends
    const pending = await store.pendingOfBatch(this.db, jobId, batch);
    await sendAll(
      this.db,
      this.setup,
      ctx,
      pending.map((delivery) => ({ delivery, attempt: 1 })),
      (chunk) => this.retries.settle(jobId, chunk, 'pending'),
    );
    await completeJobIfDone(this.db, jobId);
  }
}
