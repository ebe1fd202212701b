/**
 * What orgs erases when an account is deleted (GDPR Art. 17; docs/decisions/0012-account-deletion.md): the
 * individual's memberships. Consent records stay with the consent domain, naming the individual by ID only.
 */
import type { Executor } from '../../platform/db/open.js';
import { leaveAll } from './store.js';

/**
 * Deletes the individual's admin roles and subscriptions in every organisation, each subscription with an
 * `individual.deleted` outbox event (docs/events.md), written before the membership is erased.
 * @param tx - the account deletion's transaction.
 * @returns the organisations the individual was subscribed to (their sequencers are woken after the commit).
 */
export function eraseMemberships(tx: Executor, userId: string): Promise<string[]> {
  return leaveAll(tx, userId);
}
