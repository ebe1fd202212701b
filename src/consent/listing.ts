/**
 * The consented-user pages of SPEC 4.3: of one attribute of a purpose, or of a purpose (issue #3
 * "Listings"; NOTES.md "Consented-users pages").
 */
import type { Db } from '../db/open.js';
import { NotFound } from '../http/errors.js';
import { keysetPage } from '../http/pagination.js';
import { type IndividualBody, presentIndividual } from '../individuals/service.js';
import { isId } from '../util/ids.js';
import { consentedUsers, listingPurpose } from './listing-store.js';

/** Consented-user pages. */
export class ListingService {
  constructor(private readonly db: Db) {}

  /**
   * One page of the users consenting to the purpose (or to one of its attributes), by user ID.
   * @param attributeId - undefined for the purpose's page.
   * @param startId - exclusive; a malformed one starts nowhere (empty page).
   * @returns the users and, when another page exists, its start.
   * @throws {NotFound} when the purpose is not the organisation's, or the attribute not the purpose's.
   */
  async page(orgId: string, purposeId: string, attributeId: string | undefined, startId: string | undefined, limit: number): Promise<{ users: IndividualBody[]; next?: string }> {
    const purpose = isId(purposeId) ? await listingPurpose(this.db, orgId, purposeId) : null;
    if (!purpose) throw new NotFound('Purpose not found');
    const attributes = purpose.attributeIds;
    if (attributeId !== undefined && !attributes.includes(attributeId)) throw new NotFound('Attribute not found in this purpose');
    if (startId !== undefined && !isId(startId)) return { users: [] };
    const found = await consentedUsers(this.db, {
      orgId,
      purposeId,
      attributeIds: attributeId ? [attributeId] : attributes,
      lawfulUsage: purpose.lawfulUsage,
      after: startId,
      limit: limit + 1,
    });
    const page = keysetPage(found, limit, (u) => u.id);
    return { users: page.items.map(presentIndividual), next: page.next };
  }
}
