/**
 * The special consent request machinery of one process: the pg-boss queue on the store, the
 * service the routes use (built with the context), and the workers (started with the other
 * background work by `Context.startWorkers`, stopped by `Context.stopWorkers` before the store is
 * closed).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../platform/config/load.js';
import type { MasterKey } from '../platform/crypto/master-key.js';
import type { Store } from '../platform/db/open.js';
import { logBackgroundFailure } from '../platform/db/unavailable.js';
import { createQueue, startQueue, stopQueue } from '../platform/jobs/queue.js';
import type { Mailer } from '../platform/mail/mailer.js';
import { RetryWorker } from './retries.js';
import { NotificationService } from './service.js';
import { NotificationSetup } from './setup.js';
import { ConsentRequestWorker } from './worker.js';

/** The notification parts of a context: the service, and how to start its workers. */
export interface Notifications {
  service: NotificationService;
  /**
   * Starts the queue and the workers.
   * @param log - where background failures are reported.
   * @returns a function that stops them (running handlers get the queue's grace period).
   * @throws the database's error when pg-boss cannot create its schema.
   */
  start(log: FastifyBaseLogger): Promise<() => Promise<void>>;
}

/**
 * Builds the notification service over a queue that `start` starts.
 * @param deps - the store, master key, mailer and configuration of the context.
 */
export function createNotifications(deps: {
  store: Store;
  master: MasterKey;
  mailer: Mailer;
  config: Config;
}): Notifications {
  const { store, config } = deps;
  const queue = createQueue(store, { leaseSeconds: config.jobLeaseSeconds });
  const setup = new NotificationSetup(store.db, deps.master, deps.mailer, config);
  let worker: ConsentRequestWorker | undefined;
  const service = new NotificationService(store.db, queue, setup, () => worker?.wake());
  return {
    service,
    async start(log) {
      await startQueue(queue, store, { leaseSeconds: config.jobLeaseSeconds }, (err) =>
        logBackgroundFailure(log, err, 'job queue error'),
      );
      const retries = new RetryWorker(store.db, queue, setup);
      worker = new ConsentRequestWorker(store.db, queue, setup, retries, log);
      await worker.start();
      return async () => {
        retries.stop();
        await stopQueue(queue);
        setup.close();
      };
    },
  };
}
