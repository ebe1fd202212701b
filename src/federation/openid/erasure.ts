/**
 * What federation erases when an account is deleted (GDPR Art. 17; docs/decisions/0012-account-deletion.md).
 */
import type { Executor } from '../../platform/db/open.js';
import { deleteUserLinks } from './store.js';

/**
 * Deletes the individual's links to external identities (issuer and `sub` identify the person; a later federated
 * sign-in starts afresh) and their federation codes not yet exchanged.
 * @param tx - the account deletion's transaction.
 */
export function eraseFederatedIdentities(tx: Executor, userId: string): Promise<void> {
  return deleteUserLinks(tx, userId);
}
