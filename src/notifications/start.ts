/**
 * Starts the special consent request machinery with the HTTP app: the pg-boss queue on the
 * store, the worker, and the service the routes use; stops the queue when the app closes, before
 * the store is closed.
 */
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.js';
import { startQueue, stopQueue } from '../jobs/queue.js';
import { RetryWorker } from './retries.js';
import { NotificationService } from './service.js';
import { NotificationSetup } from './setup.js';
import { ConsentRequestWorker } from './worker.js';
import { logBackgroundFailure } from '../db/unavailable.js';

/**
 * Starts the queue and the worker.
 * @param app - the app whose logger and lifecycle they share.
 * @param ctx - the wired services.
 * @returns the service for the routes.
 * @throws the database's error when pg-boss cannot create its schema.
 */
export async function startNotifications(app: FastifyInstance, ctx: Context): Promise<NotificationService> {
  const { config, store } = ctx;
  const queue = await startQueue(
    store,
    { leaseSeconds: config.jobLeaseSeconds },
    (err) => logBackgroundFailure(app.log, err, 'job queue error'),
  );
  const setup = new NotificationSetup(store.db, ctx.master, ctx.mailer, config);
  const retries = new RetryWorker(store.db, queue, setup);
  const worker = new ConsentRequestWorker(store.db, queue, setup, retries, app.log);
  await worker.start();
  app.addHook('onClose', async () => {
    retries.stop();
    await stopQueue(queue);
    ctx.mailer.close();
  });
  return new NotificationService(store.db, queue, setup, () => worker.wake());
}
