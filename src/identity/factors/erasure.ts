/**
 * What identity erases of second factors when an account is deleted (GDPR Art. 17; docs/decisions/0012-account-deletion.md):
 * the TOTP secret, the recovery codes and any pending second step. Called by account deletion inside its transaction.
 */
import type { Executor } from '../../platform/db/open.js';
import { deleteFactors } from './store.js';

/** Deletes the person's second factors. @param tx - the account deletion's transaction. */
export function eraseFactors(tx: Executor, userId: string): Promise<void> {
  return deleteFactors(tx, userId);
}
