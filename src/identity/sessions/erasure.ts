/**
 * What identity erases when an account is deleted (GDPR Art. 17; docs/decisions/0012-account-deletion.md): every
 * credential of the individual. Called by account deletion inside its one transaction.
 */
import type { Executor } from '../../platform/db/open.js';
import { deleteUserCredentials } from './store.js';

/**
 * Deletes the individual's sessions (their access and refresh tokens are refused from then on), API keys and
 * failed-login counter. Tell the `LivenessCache` (`forgetUser`) once the transaction has committed.
 * @param tx - the account deletion's transaction.
 * @param username - the account's username before deletion (the key of its failed-login counter).
 */
export function eraseCredentials(tx: Executor, userId: string, username: string): Promise<void> {
  return deleteUserCredentials(tx, userId, username);
}
