/**
 * Work that a serving process repeats on a timer (the AskMe expiry sweep, the purge of stale
 * throttle counters): started by `Context.startWorkers`, stopped by `Context.stopWorkers` after the
 * round under way.
 */
import type { FastifyBaseLogger } from 'fastify';
import { logBackgroundFailure } from '../db/unavailable.js';

/**
 * Runs `round` every `seconds` until stopped (the first round one period after start). A
 * round still running when its period ends makes the next tick a no-op, so one process never runs
 * two rounds at once. A failed round is logged as one line without query parameters, and the next
 * one tries again.
 * @param log - where a failed round is reported.
 * @param seconds - the period (seconds).
 * @param name - what the log line calls the round, e.g. `AskMe expiry sweep`.
 * @param round - one round; it should not throw for an expected condition.
 * @returns a function that stops the timer and waits for the round under way.
 */
export function schedulePeriodic(
  log: FastifyBaseLogger,
  seconds: number,
  name: string,
  round: () => Promise<void>,
): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    // A round that outlasts its period is not joined by another: rounds piling up behind a lock
    // would each hold a pool connection until requests get none (denial of service).
    if (running) return;
    running = round()
      .catch((err) => logBackgroundFailure(log, err, `${name} failed`))
      .finally(() => {
        running = null;
      });
  }, seconds * 1000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
