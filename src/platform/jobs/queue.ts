/**
 * The durable job queue: pg-boss (PostgreSQL `SKIP LOCKED` queues with leases, retries and
 * exponential backoff), in the schema `pgboss` of the same database. On the embedded store it
 * runs on PGlite through the store's raw-SQL adapter, so the same queue code serves both.
 *
 * A job that a crashed process held is taken over when its lease (`ASSENT_JOB_LEASE_SECONDS`)
 * expires: pg-boss's maintenance (every half lease, 1 to 30 s) fails it and its retry runs elsewhere.
 */
import PgBoss from 'pg-boss';
import type { Store } from '../db/open.js';

/** The queues and what their jobs carry. */
export const QUEUES = {
  /** One batch of a special consent request: `{jobId, batch}`. */
  consentRequestBatch: 'consent-request-batch',
  /** One attempt of a failed webhook or mail delivery: `{jobId, userId, attempt}`. */
  consentRequestRetry: 'consent-request-retry',
} as const;

/** Timing of the queues. */
export interface QueueOptions {
  /** Lease of one job (seconds). */
  leaseSeconds: number;
}

/** A started queue. */
export type Queue = PgBoss;

/**
 * Builds pg-boss on the store, not started: jobs can be sent once `startQueue` has run.
 * @param store - the open store.
 * @param opts - timings.
 */
export function createQueue(store: Store, opts: QueueOptions): Queue {
  return new PgBoss({
    db: { executeSql: (text: string, values?: unknown[]) => store.raw(text, values) as Promise<{ rows: never[] }> },
    schema: 'pgboss',
    // Expired leases are found by maintenance: often enough that a crashed batch is retaken within
    // about 1.5 leases, rarely enough to cost nothing measurable (every second cost ~5 % of a login storm).
    maintenanceIntervalSeconds: Math.max(1, Math.min(30, Math.floor(opts.leaseSeconds / 2))),
  });
}

/**
 * Starts pg-boss on the store: creates or migrates its schema and the queues, under the store's
 * migration lock (`Store.exclusively`), so that processes started together do not race.
 * @param boss - the queue of `createQueue`.
 * @param store - the open store.
 * @param opts - timings.
 * @param onError - receives errors of pg-boss's background work (logged by the caller).
 * @throws the database's error when the schema cannot be created.
 */
export async function startQueue(
  boss: Queue,
  store: Store,
  opts: QueueOptions,
  onError: (err: Error) => void,
): Promise<void> {
  boss.on('error', onError);
  const definitions = [
    // A batch that fails (the database went away) is retried; its last failure marks the request failed.
    {
      name: QUEUES.consentRequestBatch,
      retryLimit: 5,
      retryDelay: 1,
      retryBackoff: true,
      expireInSeconds: opts.leaseSeconds,
    },
    // One job per attempt of a delivery (notifications/retries.ts schedules the next with its backoff);
    // pg-boss retries a take of them only when it failed itself (the database went away), like a batch.
    {
      name: QUEUES.consentRequestRetry,
      retryLimit: 5,
      retryDelay: 1,
      retryBackoff: true,
      expireInSeconds: opts.leaseSeconds,
    },
  ];
  // pg-boss's own locks do not stop two processes creating its schema or a queue's partition at
  // once (a duplicate pg_namespace entry, a deadlock): replicas started together take turns.
  await store.exclusively(async () => {
    await boss.start();
    for (const queue of definitions) {
      await boss.createQueue(queue.name, queue); // a no-op when it exists...
      await boss.updateQueue(queue.name, queue); // ...so the current settings are applied here
    }
  });
}

/**
 * Stops the queue: no new work is fetched; running handlers get `graceSeconds` to finish.
 * @param graceSeconds - seconds.
 */
export async function stopQueue(boss: Queue, graceSeconds = 5): Promise<void> {
  await boss.stop({ graceful: true, wait: true, timeout: graceSeconds * 1000 });
}
