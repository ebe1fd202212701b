/**
 * What images erases when an account is deleted (GDPR Art. 17; docs/decisions/0012-account-deletion.md).
 */
import type { Executor } from '../../platform/db/open.js';
import { removeImages } from './store.js';

/**
 * Deletes the individual's profile images and clears the reference to them.
 * @param tx - the account deletion's transaction.
 */
export async function eraseImages(tx: Executor, userId: string): Promise<void> {
  await removeImages(tx, userId);
}
