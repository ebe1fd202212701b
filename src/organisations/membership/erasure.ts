/**
 * What orgs erases when an account is deleted (GDPR Art. 17; docs/decisions/0012-account-deletion.md): the
 * individual's memberships. Consent records stay with the consent domain, naming the individual by ID only.
 */
import type { Executor } from '../../platform/db/open.js';
import { leaveAll } from './store.js';

/**
 * Deletes the individual's admin roles and subscriptions in every organisation.
 * @param tx - the account deletion's transaction.
 */
export function eraseMemberships(tx: Executor, userId: string): Promise<void> {
  return leaveAll(tx, userId);
}
