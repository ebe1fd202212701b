/**
 * The purge of stale anti-automation counters (`login_throttle`, `rate_limits`). They are written by
 * unauthenticated requests: a flood of logins with made-up usernames, or of password-reset requests,
 * adds a row per name, so without a purge the tables grow for as long as the attack lasts (ASVS 5.0
 * V2.4.1: anti-automation must not become a resource-exhaustion vector itself). Only rows that no
 * longer change any decision are deleted.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import { AUTHORIZE_LIMIT } from '../federation/broker.js';
import { clearLapsedSuccessors } from '../identity/store.js';
import * as throttle from '../identity/throttle-store.js';
import * as limits from '../ratelimit/store.js';
import { schedulePeriodic } from './periodic.js';

/**
 * What may be purged after how long: the login throttle's longest failure window, and each rate
 * limit's key family with its window (the keys are those of `enforce` calls).
 * @param config - the configuration.
 */
export function purgeWindows(config: Config): { throttleSeconds: number; rateLimits: limits.KeyWindow[] } {
  return {
    throttleSeconds: Math.max(config.throttleAccount.windowSeconds, config.throttleIp.windowSeconds),
    rateLimits: [
      { prefix: 'forgot:', windowSeconds: Math.max(config.forgotPerUsername.windowSeconds, config.forgotPerIp.windowSeconds) },
      { prefix: 'anon:', windowSeconds: config.anonymousLimit.windowSeconds },
      { prefix: 'fed-authorize:', windowSeconds: AUTHORIZE_LIMIT.windowSeconds },
    ],
  };
}

/**
 * Purges both tables every `config.purgeSeconds` (`ASSENT_PURGE_SECONDS`, default 300) until
 * stopped, and erases the refresh answers kept past their reuse grace period (docs/identity.md "Sessions": kept
 * only for that window). Safe from several processes at once: each round is one statement per table.
 * @returns a function that stops it after the round under way.
 */
export function schedulePurge(log: FastifyBaseLogger, db: Db, config: Config): () => Promise<void> {
  const windows = purgeWindows(config);
  return schedulePeriodic(log, config.purgeSeconds, 'purge of stale throttle counters', async () => {
    const counters = await throttle.purgeStale(db, windows.throttleSeconds);
    const keys = await limits.purgeStale(db, windows.rateLimits);
    const successors = await clearLapsedSuccessors(db);
    if (counters + keys + successors > 0) log.info({ counters, keys, successors }, 'stale throttle counters and lapsed refresh answers purged');
  });
}
