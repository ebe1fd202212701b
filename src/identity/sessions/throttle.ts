/**
 * Brute-force protection for logins, per account and per client IP (ASVS 5.0 V6.3.1, V6.1.1):
 * after `delayAfter` consecutive failures each further attempt must wait 1, 2, 4 … s (at most
 * `maxDelaySeconds`); at `lockAfter` failures the key is locked for `lockSeconds`. A blocked
 * attempt is answered 429 with `Retry-After` before any password is checked, whether the
 * account exists or not and whether the password is right or not, so the answer reveals neither.
 */

import type { ThrottlePolicy } from '../../platform/config/load.js';
import { RateLimited } from '../../platform/core/errors.js';
import type { Executor } from '../../platform/db/open.js';
import * as store from './throttle-store.js';

/** The throttle keys of one login attempt. */
export interface AttemptKeys {
  /** `u:<normalised username>`. */
  account: string;
  /** `ip:<address>`. */
  ip: string;
}

/**
 * Builds the keys of an attempt.
 * @param username - normalised (lower-case) username as sent, existing or not.
 * @param ip - client address.
 */
export function attemptKeys(username: string, ip: string): AttemptKeys {
  return { account: `u:${username}`, ip: `ip:${ip}` };
}

/**
 * Delay imposed after `failures` consecutive failures (seconds; 0 = none).
 * @param failures - consecutive failures (count).
 * @param policy - thresholds.
 */
export function delayFor(failures: number, policy: ThrottlePolicy): number {
  if (failures >= policy.lockAfter) return policy.lockSeconds;
  if (failures >= policy.delayAfter) return Math.min(2 ** (failures - policy.delayAfter), policy.maxDelaySeconds);
  return 0;
}

/**
 * Refuses the attempt when the account or the IP is currently blocked.
 * @param blockedUntil - the later block end of the attempt's keys, or null (see `loginLookup`).
 * @throws {RateLimited} with the seconds until that block ends.
 */
export function assertNotBlocked(blockedUntil: Date | null): void {
  if (blockedUntil && blockedUntil.getTime() > Date.now())
    throw new RateLimited((blockedUntil.getTime() - Date.now()) / 1000);
}

/** Records a failed attempt against both keys and blocks them as the policies say. */
export async function recordFailure(
  db: Executor,
  keys: AttemptKeys,
  account: ThrottlePolicy,
  ip: ThrottlePolicy,
): Promise<void> {
  for (const [key, policy] of [
    [keys.account, account],
    [keys.ip, ip],
  ] as const)
    await recordKeyFailure(db, key, policy);
}

/**
 * Records a failure against one key and blocks it as `policy` says: the throttle of a credential
 * check other than the login (the federation code exchange, per client IP: docs/federation.md "Exchange").
 * @param key - a key of its own prefix, e.g. `fed-exchange:ip:<address>`.
 * @param policy - thresholds, e.g. `Config.throttleIp`.
 */
export async function recordKeyFailure(db: Executor, key: string, policy: ThrottlePolicy): Promise<void> {
  const failures = await store.recordFailure(db, key, policy.windowSeconds);
  const delay = delayFor(failures, policy);
  if (delay > 0) await store.block(db, key, delay);
}

/**
 * Refuses the attempt while `key` is blocked (see `recordKeyFailure`).
 * @throws {RateLimited} with the seconds until the block ends.
 */
export async function assertKeyNotBlocked(db: Executor, key: string): Promise<void> {
  assertNotBlocked(await store.blockedUntil(db, [key]));
}

/**
 * Refuses a credential check outside the login (the current password of a password change) while
 * the account or the IP of the attempt is blocked, as the login itself would (ASVS 5.0 V6.3.1).
 * @throws {RateLimited} with the seconds until the later block ends.
 */
export async function assertAttemptNotBlocked(db: Executor, keys: AttemptKeys): Promise<void> {
  assertNotBlocked(await store.blockedUntil(db, [keys.account, keys.ip]));
}

/** Clears the account's failures after a successful login; the IP's count stays (it spans accounts). */
export async function recordSuccess(db: Executor, keys: AttemptKeys): Promise<void> {
  await store.reset(db, keys.account);
}
