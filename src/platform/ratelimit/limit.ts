/**
 * Fixed-window rate limits for operations that cost or reveal something when repeated: unauthenticated
 * password-reset requests (per username and per client IP), anonymous-user creation per organisation
 * (ASVS 5.0 V2.4.1 anti-automation). A limit is counted in the database, so it holds across processes.
 */

import { RateLimited } from '../core/errors.js';
import type { Executor } from '../db/open.js';
import { hit, purgeExpired } from './store.js';

/** One limit. */
export interface RateLimit {
  /** Events allowed per window (count). */
  max: number;
  /** Window length (seconds). */
  windowSeconds: number;
}

/**
 * Counts an event against `key`.
 * @param key - what is limited, e.g. `forgot:ip:203.0.113.9`.
 * @returns true while the window's count is within `limit.max`.
 */
export async function allow(db: Executor, key: string, limit: RateLimit): Promise<boolean> {
  const { count } = await hit(db, key, limit.windowSeconds);
  return count <= limit.max;
}

/**
 * Counts an event against `key` and refuses it beyond the limit.
 * @throws {RateLimited} (429, `Retry-After` = the rest of the window) past `limit.max`.
 */
export async function enforce(db: Executor, key: string, limit: RateLimit): Promise<void> {
  const { count, windowStart } = await hit(db, key, limit.windowSeconds);
  if (count > limit.max) {
    const retryAfter = Math.max(1, limit.windowSeconds - (Date.now() - windowStart.getTime()) / 1000);
    throw new RateLimited(retryAfter);
  }
}

/**
 * Deletes the counters whose window has ended, whatever they limit: each carries the end of its
 * window, written when it is counted, so the caller needs to know no key nor window. Without it,
 * every username or address tried would leave a counter for ever (ASVS 5.0 V2.4.1).
 * @returns how many counters were deleted (count).
 */
export function deleteExpired(db: Executor): Promise<number> {
  return purgeExpired(db);
}
