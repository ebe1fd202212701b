/**
 * Work that a serving process repeats on a timer (the AskMe expiry sweep, the purge of stale
 * throttle counters): started when the app is ready, stopped on close after the round under way.
 */
import type { FastifyInstance } from 'fastify';
import { safeErrorMessage } from '../util/errors.js';

/**
 * Runs `round` every `seconds` while the app is up (the first round one period after start). A
 * failed round is logged as one line without query parameters, and the next one tries again.
 * @param seconds - the period (seconds).
 * @param name - what the log line calls the round, e.g. `AskMe expiry sweep`.
 * @param round - one round; it should not throw for an expected condition.
 */
export function schedulePeriodic(app: FastifyInstance, seconds: number, name: string, round: () => Promise<void>): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  app.addHook('onReady', async () => {
    timer = setInterval(() => {
      running = round().catch((err) => app.log.error({ err: safeErrorMessage(err) }, `${name} failed`));
    }, seconds * 1000);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}
