/**
 * What passwords erases when an account is deleted (GDPR Art. 17; docs/decisions/0012-account-deletion.md).
 */
import type { Executor } from '../../platform/db/open.js';
import { deleteResetToken } from './store.js';

/**
 * Deletes the individual's password reset token, so that a link mailed before the deletion leads nowhere.
 * @param tx - the account deletion's transaction.
 */
export function eraseResetToken(tx: Executor, userId: string): Promise<void> {
  return deleteResetToken(tx, userId);
}
