/**
 * What the OpenID providers keep only for a while: interactions, sessions, grants, codes and
 * tokens past their expiry (`oidc_provider_records`), which are never read again (the adapter
 * skips them) and are deleted by the purge (src/app/purge.ts), so the table does not grow with
 * every abandoned sign-in (ASVS 5.0 V2.4.1).
 */
import type { Executor } from '../../platform/db/open.js';
import { purgeExpiredRecords } from './store.js';

/**
 * Deletes the providers' expired rows; one statement, safe from several processes at once.
 * @returns how many rows were deleted.
 */
export function purgeExpiredProviderState(db: Executor): Promise<number> {
  return purgeExpiredRecords(db);
}
