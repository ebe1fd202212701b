/**
 * What wallet sign-in erases when an account is deleted (GDPR Art. 17;
 * docs/decisions/0012-account-deletion.md).
 */
import type { Executor } from '../../platform/db/open.js';
import { deleteUserIdentities } from './store.js';

/**
 * Deletes the individual's links to wallet credentials and the mapped claims of their sign-ins (the
 * e-mail address and names they disclosed); a later wallet sign-in starts afresh.
 * @param tx - the account deletion's transaction.
 */
export function eraseWalletIdentities(tx: Executor, userId: string): Promise<void> {
  return deleteUserIdentities(tx, userId);
}
