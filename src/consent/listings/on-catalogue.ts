/**
 * The catalogue step shared by the reads of this folder (the consented-user pages, the overview and trend, the bulk
 * consent check): a statement over consents runs on the cached catalogue and reads `catalogue_version` with its
 * answer; a copy found stale is reloaded and the statement asked again (docs/consents.md "Overview and trend" "Cost";
 * src/consent/catalogue/cache.ts).
 */
import { Conflict, NotFound } from '../../platform/core/errors.js';
import { isId } from '../../platform/util/ids.js';
import type { CatalogueCache } from '../catalogue/cache.js';
import type { Catalogue } from '../catalogue/store.js';

/** A catalogue that moved under a read this many times in a row is answered 409 (busy, retry). */
const MAX_ATTEMPTS = 3;

/** What a read needs live in the catalogue: a purpose, and attributes of it. */
export interface CatalogueWants {
  /** A purpose that must be live (any string; a malformed ID is not found). */
  purposeId?: string;
  /** Attributes that must be live in that purpose (any strings). */
  attributeIds?: readonly string[];
}

/**
 * Runs `run` on the organisation's catalogue: the cached copy, reloaded first when the purpose or an attribute asked
 * for is missing from it (it may be newer than the copy), and again whenever `run` finds the copy stale (its
 * statement read another `catalogue_version`).
 * @param catalogues - the cache.
 * @param orgId - the organisation, as sent.
 * @param wants - what must be live.
 * @param run - answers, or null when the organisation is gone, or `stale`.
 * @throws {NotFound} when the organisation does not exist, the purpose is not the organisation's, or an attribute
 *   not the purpose's (as the consent operations answer them, docs/api.md "Identifiers"); {Conflict} when the
 *   catalogue was stale `MAX_ATTEMPTS` times in a row.
 */
export async function onCatalogue<T>(
  catalogues: CatalogueCache,
  orgId: string,
  wants: CatalogueWants,
  run: (catalogue: Catalogue) => Promise<T | 'stale' | null>,
): Promise<T> {
  if (!isId(orgId)) throw new NotFound('Organisation not found');
  let catalogue: Catalogue | null | undefined = catalogues.peek(orgId);
  let fresh = !catalogue;
  if (!catalogue) catalogue = await catalogues.load(orgId);
  for (let attempt = 1; catalogue; attempt++) {
    const { purposeId, attributeIds } = wants;
    const purpose = purposeId !== undefined && isId(purposeId) ? catalogue.byId.get(purposeId) : undefined;
    const known =
      purposeId === undefined ||
      (purpose !== undefined &&
        (attributeIds === undefined || attributeIds.every((id) => purpose.attributes.some((a) => a.id === id))));
    // A purpose or attribute missing from a cached copy may be newer than the copy: reload first.
    if (!known && !fresh) {
      catalogue = await catalogues.load(orgId);
      fresh = true;
      continue;
    }
    if (!known) throw new NotFound(purpose ? 'Attribute not found in this purpose' : 'Purpose not found');
    const found = await run(catalogue);
    if (found === null) break;
    if (found !== 'stale') return found;
    if (attempt >= MAX_ATTEMPTS) throw new Conflict("The organisation's purposes are being changed; try again");
    catalogue = await catalogues.load(orgId);
    fresh = true;
  }
  throw new NotFound('Organisation not found');
}
