/**
 * Work that a serving process repeats on a timer (the AskMe expiry sweep, the purge of stale
 * throttle counters): started when the app is ready, stopped on close after the round under way.
 */
import type { FastifyInstance } from 'fastify';
import { logBackgroundFailure } from '../db/unavailable.js';

/**
 * Runs `round` every `seconds` while the app is up (the first round one period after start). A
 * round still running when its period ends makes the next tick a no-op, so one process never runs
 * two rounds at once. A failed round is logged as one line without query parameters, and the next
 * one tries again.
 * @param seconds - the period (seconds).
 * @param name - what the log line calls the round, e.g. `AskMe expiry sweep`.
 * @param round - one round; it should not throw for an expected condition.
 */
export function schedulePeriodic(app: FastifyInstance, seconds: number, name: string, round: () => Promise<void>): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | null = null;
  app.addHook('onReady', async () => {
    timer = setInterval(() => {
      // A round that outlasts its period is not joined by another: rounds piling up behind a lock
      // would each hold a pool connection until requests get none (denial of service).
      if (running) return;
      running = round()
        .catch((err) => logBackgroundFailure(app.log, err, `${name} failed`))
        .finally(() => {
          running = null;
        });
    }, seconds * 1000);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}
