/**
 * What the identity domain keeps only for a while, purged once it has lapsed: failed-login
 * counters (`login_throttle`) past their window with no block in force (ASVS 5.0 V2.4.1: a flood
 * of made-up usernames must not grow the table for ever), and the refresh answers kept for the
 * reuse grace period (docs/identity.md "Sessions": kept only for that window), and the web sessions
 * that ended (docs/web.md "Sessions").
 */
import type { Config } from '../../platform/config/load.js';
import type { Executor } from '../../platform/db/open.js';
import { clearLapsedSuccessors } from './store.js';
import { purgeStale } from './throttle-store.js';
import { purgeSessions } from './web-session-store.js';
import { WEB_IDLE_SECONDS } from './web-sessions.js';

/** What one purge deleted or erased. */
export interface Lapsed {
  /** Failed-login counters deleted (count). */
  counters: number;
  /** Sealed refresh answers erased (count). */
  successors: number;
  /** Web sessions past their end or idle too long, deleted (count; docs/web.md "Sessions"). */
  webSessions: number;
}

/**
 * Deletes the failed-login counters that decide nothing any more (the longer of the account and IP
 * policies' windows has passed since the last failure, and no block is in force), and erases the
 * refresh answers whose reuse grace period (`ASSENT_REFRESH_REUSE_GRACE_SECONDS`) has ended, and
 * deletes the web sessions past their end or idle longer than `WEB_IDLE_SECONDS`.
 * One statement each; safe from several processes at once.
 * @param config - the throttle policies (`ASSENT_LOCK_SECONDS` windows).
 */
export async function purgeLapsed(db: Executor, config: Config): Promise<Lapsed> {
  const windowSeconds = Math.max(config.throttleAccount.windowSeconds, config.throttleIp.windowSeconds);
  const counters = await purgeStale(db, windowSeconds);
  const successors = await clearLapsedSuccessors(db);
  const webSessions = await purgeSessions(db, WEB_IDLE_SECONDS);
  return { counters, successors, webSessions };
}
