/**
 * Ending every session of an individual at once, for the domains whose rules call for it: a
 * changed or reset password signs out whoever knew the old one (ASVS 5.0 V7.4.3). Identity owns
 * the sessions (token families, docs/api.md "Identity management"); other domains end them through this function, inside
 * their own transaction, and then tell the `LivenessCache` (`forgetUser`) once it has committed.
 */
import type { Executor } from '../../platform/db/open.js';
import { revokeUserFamilies } from './store.js';

/**
 * Revokes the individual's live sessions (token families), but `keep` when given; their access and
 * refresh tokens are refused from then on.
 * @param db - the caller's transaction (or the root handle).
 * @param userId - the individual.
 * @param keep - the session (`sid`) to keep, typically the caller's own; null to end every one.
 * @param reason - stored with each revocation, e.g. `password reset`.
 * @returns how many sessions were ended (count).
 */
export function revokeUserSessions(db: Executor, userId: string, keep: string | null, reason: string): Promise<number> {
  return revokeUserFamilies(db, userId, keep, reason);
}
