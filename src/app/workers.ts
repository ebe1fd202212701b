/**
 * The background work of a serving process: the AskMe expiry sweep, the purge of stale throttle
 * counters, the sealer's sweep of events left unsealed, the event sequencer's sweep of outbox events left
 * unnumbered, the event webhooks' dispatcher (on PostgreSQL, in its own thread), and the job queue with its workers.
 * `assent serve` and the test server start them through `Context.startWorkers` and stop them
 * through `Context.stopWorkers`, after the HTTP app has closed and before the store is closed.
 */
import type { FastifyBaseLogger } from 'fastify';
import { scheduleSweep } from '../consent/index.js';
import type { Notifications } from '../notifications/index.js';
import { logBackgroundFailure } from '../platform/db/unavailable.js';
import type { Context } from './context.js';
import { schedulePurge } from './purge.js';

/**
 * Starts every background worker.
 * @param ctx - the wired services.
 * @param notifications - the notification parts of the context.
 * @param log - where background failures are reported.
 * @returns a function that stops them all, waiting for the rounds under way.
 * @throws the database's error when pg-boss cannot create its schema.
 */
export async function startWorkers(
  ctx: Context,
  notifications: Notifications,
  log: FastifyBaseLogger,
): Promise<() => Promise<void>> {
  const stops: Array<() => Promise<void>> = [];
  stops.push(scheduleSweep(log, ctx.store.db, ctx.sealer, ctx.config.askMeSweepSeconds));
  stops.push(schedulePurge(log, ctx.store.db, ctx.config));
  // Outbox events left unnumbered by a process that died after its commit, or written by a path that does not wake.
  ctx.events.startSweep(1, (err) => logBackgroundFailure(log, err, 'numbering organisation events failed'));
  stops.push(() => ctx.events.stop());
  // Event webhooks: fanned out when the sequencer numbers, delivered, retried, disabled when failing (docs/events.md).
  ctx.webhooks.delivery.start(ctx.events, (err) => logBackgroundFailure(log, err, 'delivering event webhooks failed'));
  stops.push(() => ctx.webhooks.delivery.stop());
  // Events left unsealed by a process that died after its commit.
  ctx.sealer.startSweep(1, (err) => logBackgroundFailure(log, err, 'sealing consent events failed'));
  stops.push(() => ctx.sealer.stop());
  // Audit entries are sealed by this sweep and before every read (docs/decisions/0033-audit-log-chain.md).
  ctx.auditSealer.startSweep(1, (err) => logBackgroundFailure(log, err, 'sealing audit entries failed'));
  stops.push(() => ctx.auditSealer.stop());
  stops.push(await notifications.start(log));
  return async () => {
    // Last started, first stopped: the job workers before the sealer they wake, the sealer before the sequencer it wakes.
    for (const stop of stops.reverse()) await stop();
    ctx.mailer.close();
  };
}
