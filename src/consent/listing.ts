/**
 * The consented-user pages of SPEC 4.3: of one attribute of a purpose, or of a purpose
 * (docs/decisions/0008-consent-records-and-catalogue.md "Listings"; docs/api.md "Consented-users
 * pages").
 */
import type { Db } from '../db/open.js';
import { Conflict, NotFound } from '../http/errors.js';
import { keysetPage } from '../http/pagination.js';
import { type IndividualBody, presentIndividual } from '../individuals/service.js';
import { isId } from '../util/ids.js';
import type { CatalogueCache } from './catalogue.js';
import type { Catalogue } from './catalogue-store.js';
import { consentedUsers } from './listing-store.js';

/** A catalogue that moved under a page this many times in a row is answered 409 (busy, retry). */
const MAX_ATTEMPTS = 3;

/** Consented-user pages. */
export class ListingService {
  /**
   * @param db - the database.
   * @param catalogues - the organisations' purposes and data attributes, cached and version-checked.
   */
  constructor(
    private readonly db: Db,
    private readonly catalogues: CatalogueCache,
  ) {}

  /**
   * One page of the users consenting to the purpose (or to one of its attributes), by user ID: the
   * purpose and its attributes from the cached catalogue, then one statement that lists only while
   * that catalogue is current (else the catalogue is reloaded and the page asked again).
   * @param attributeId - undefined for the purpose's page.
   * @param startId - exclusive; a malformed one starts nowhere (empty page).
   * @param limit - page size (count).
   * @returns the users and, when another page exists, its start.
   * @throws {NotFound} when the organisation does not exist, the purpose is not the organisation's,
   *   or the attribute not the purpose's; {Conflict} when the catalogue kept changing during the request.
   */
  async page(
    orgId: string,
    purposeId: string,
    attributeId: string | undefined,
    startId: string | undefined,
    limit: number,
  ): Promise<{ users: IndividualBody[]; next?: string }> {
    if (!isId(orgId)) throw new NotFound('Organisation not found');
    let catalogue: Catalogue | null | undefined = this.catalogues.peek(orgId);
    let fresh = !catalogue;
    if (!catalogue) catalogue = await this.catalogues.load(orgId);
    for (let attempt = 1; catalogue; attempt++) {
      const purpose = isId(purposeId) ? catalogue.byId.get(purposeId) : undefined;
      const known =
        purpose !== undefined && (attributeId === undefined || purpose.attributes.some((a) => a.id === attributeId));
      // A purpose or attribute missing from a cached copy may be newer than the copy: reload first.
      if (!known && !fresh) {
        catalogue = await this.catalogues.load(orgId);
        fresh = true;
        continue;
      }
      if (!purpose) throw new NotFound('Purpose not found');
      if (!known) throw new NotFound('Attribute not found in this purpose');
      if (startId !== undefined && !isId(startId)) return { users: [] };
      const found = await consentedUsers(this.db, {
        orgId,
        catalogueVersion: catalogue.version,
        purposeId,
        attributeIds: attributeId ? [attributeId] : purpose.attributes.map((a) => a.id),
        lawfulUsage: purpose.lawfulUsage,
        after: startId,
        limit: limit + 1,
      });
      if (found === null) break;
      if (found !== 'stale') {
        const page = keysetPage(found, limit, (u) => u.id);
        return { users: page.items.map(presentIndividual), next: page.next };
      }
      if (attempt >= MAX_ATTEMPTS) throw new Conflict("The organisation's purposes are being changed; try again");
      catalogue = await this.catalogues.load(orgId);
      fresh = true;
    }
    throw new NotFound('Organisation not found');
  }
}
