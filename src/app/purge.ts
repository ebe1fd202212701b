/**
 * The purge of stale anti-automation counters (`login_throttle`, `rate_limits`) and of lapsed
 * refresh answers, ended wallet transactions (docs/wallet.md), the OpenID providers' expired state (src/provider/openid/lapsed.ts)
 * and event webhook deliveries finished more than 30 days ago (docs/events.md), and ended sign-in ceremonies (second
 * steps, WebAuthn challenges: docs/security.md). The counters are written by unauthenticated requests: a flood of logins with
 * made-up usernames, or of password-reset requests, adds a row per name, so without a purge the
 * tables grow for as long as the attack lasts (ASVS 5.0 V2.4.1: anti-automation must not become a
 * resource-exhaustion vector itself). Only rows that no longer change any decision are deleted;
 * each domain decides which of its own rows those are.
 */
import type { FastifyBaseLogger } from 'fastify';
import { purgeEndedCeremonies, purgeLapsed } from '../identity/index.js';
import { purgeFinishedDeliveries } from '../notifications/index.js';
import type { Config } from '../platform/config/load.js';
import type { Db } from '../platform/db/open.js';
import { schedulePeriodic } from '../platform/jobs/periodic.js';
import { deleteExpired } from '../platform/ratelimit/limit.js';
import { purgeExpiredProviderState, purgeWalletTransactions } from '../provider/index.js';

/**
 * Purges every `config.purgeSeconds` (`ASSENT_PURGE_SECONDS`, default 300) until stopped: what
 * identity keeps only for a while (failed-login counters, refresh answers past their reuse grace
 * period, docs/identity.md "Sessions") and the rate-limit counters whose window has ended. Safe
 * from several processes at once: each part is one statement.
 * @returns a function that stops it after the round under way.
 */
export function schedulePurge(log: FastifyBaseLogger, db: Db, config: Config): () => Promise<void> {
  return schedulePeriodic(log, config.purgeSeconds, 'purge of stale throttle counters', async () => {
    const { counters, successors, webSessions } = await purgeLapsed(db, config);
    const ceremonies = await purgeEndedCeremonies(db);
    const keys = await deleteExpired(db);
    const walletTransactions = await purgeWalletTransactions(db);
    const oidcRecords = await purgeExpiredProviderState(db);
    const webhookDeliveries = await purgeFinishedDeliveries(db);
    const purged = { counters, keys, successors, walletTransactions, oidcRecords, webSessions, webhookDeliveries };
    if (Object.values(purged).reduce((a, b) => a + b, 0) + ceremonies > 0)
      log.info(
        { ...purged, ceremonies },
        'stale throttle counters, lapsed refresh answers, ended wallet transactions, expired OpenID provider state, ' +
          'lapsed web sessions, ended sign-in ceremonies and old webhook deliveries purged',
      );
  });
}
