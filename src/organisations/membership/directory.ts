/**
 * What the orgs domain tells the others about an organisation itself: whether it exists and its
 * name (the OpenID provider's sign-in page shows it, and an unknown organisation gets no provider:
 * docs/api.md "Authorization endpoint"; docs/wallet.md). Other domains use this module, never `organisations/membership/store.ts`.
 */
import type { Executor } from '../../platform/db/open.js';
import { isEmailAddress } from '../../platform/mail/address.js';
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
 * The e-mail addresses of the organisation's Owners (each Owner's e-mail, else their username when it is an address;
 * none for an Owner with neither), for mails about the organisation's own configuration (a webhook
 * disabled for failing: docs/events.md "Retries").
 * @param orgId - an organisation ID.
 */
export async function ownerAddresses(db: Executor, orgId: string): Promise<string[]> {
  // The e-mail field when it holds an address, else the username when it is one (as invitations address accounts).
  const addresses = (await store.owners(db, orgId)).map(
    (o) => [o.email.trim(), o.username].find(isEmailAddress) ?? null,
  );
  return [...new Set(addresses.filter((a): a is string => a !== null))];
}
