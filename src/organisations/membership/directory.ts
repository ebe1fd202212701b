/**
 * What the orgs domain tells the others about an organisation itself: whether it exists and its
 * name (the OpenID provider's sign-in page shows it, and an unknown organisation gets no provider:
 * docs/api.md "Authorization endpoint"; docs/wallet.md). Other domains use this module, never `organisations/membership/store.ts`.
 */
import type { Executor } from '../../platform/db/open.js';
import { isId } from '../../platform/util/ids.js';
import * as store from './store.js';

/**
 * The organisation's display name, or null when no organisation has that ID (a malformed ID included).
 * @param orgId - the organisation ID from the path (any string).
 */
export async function organisationName(db: Executor, orgId: string): Promise<string | null> {
  return isId(orgId) ? store.organisationName(db, orgId) : null;
}

/**
 * The e-mail addresses of the organisation's Owners, for mails about the organisation's own configuration (a webhook
 * disabled for failing: docs/events.md "Retries").
 * @param orgId - an organisation ID.
 */
export function ownerAddresses(db: Executor, orgId: string): Promise<string[]> {
  return store.ownerAddresses(db, orgId);
}
