/**
 * What users erases when an account is deleted (GDPR Art. 17; docs/decisions/0012-account-deletion.md): the
 * personal data of the user row, which stays as a tombstone keyed by the random user ID (the consent history's
 * pseudonym).
 */
import type { Executor } from '../../platform/db/open.js';
import { scrubUser } from './store.js';

/**
 * Scrubs the user row (name, e-mail, phone, username, password hash, device token, image reference) and marks it
 * deleted, under its row lock.
 * @param tx - the account deletion's transaction.
 * @returns the old username, or null when there is no live user of that ID.
 */
export function scrubAccount(tx: Executor, userId: string): Promise<string | null> {
  return scrubUser(tx, userId);
}
