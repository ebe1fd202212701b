/**
 * A per-process cache of organisations' consent catalogues (their live purposes and data
 * attributes), so that the hot consent reads and consented-user pages need not join them on every
 * request (docs/decisions/0007-consent-read-and-write-path.md "Benchmark").
 *
 * It is never trusted blindly: every statement that combines consents with the catalogue also reads
 * the organisation's `catalogue_version` (bumped by a trigger on every change of purposes, data
 * attributes or their links, migration 0009), and the caller reloads when it differs from the copy's.
 * So a change made by any process (another server, the CLI import) is seen by the next request.
 */
import type { Db } from '../../platform/db/open.js';
import { type Catalogue, loadCatalogue } from './store.js';

/** Organisations kept at most (count); the least recently used is dropped first. */
const MAX_ENTRIES = 1000;

/** Cached catalogues of one store. */
export class CatalogueCache {
  private readonly entries = new Map<string, Catalogue>();

  /** @param db - the root handle the catalogues are read from. */
  constructor(private readonly db: Db) {}

  /**
   * The cached copy, if any, without reading the database; the caller checks its `version`.
   * @param orgId - a well-formed organisation ID.
   */
  peek(orgId: string): Catalogue | undefined {
    const entry = this.entries.get(orgId);
    if (entry) {
      // Most recently used last: re-inserting moves it to the end of the Map's order.
      this.entries.delete(orgId);
      this.entries.set(orgId, entry);
    }
    return entry;
  }

  /**
   * Reads the catalogue from the database and caches it.
   * @param orgId - a well-formed organisation ID.
   * @returns null when the organisation does not exist (nothing is cached).
   */
  async load(orgId: string): Promise<Catalogue | null> {
    const catalogue = await loadCatalogue(this.db, orgId);
    if (!catalogue) {
      this.entries.delete(orgId);
      return null;
    }
    const current = this.entries.get(orgId);
    // Two loads can race; keep the newer snapshot.
    if (!current || current.version <= catalogue.version) {
      this.entries.delete(orgId);
      this.entries.set(orgId, catalogue);
      if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    }
    return catalogue;
  }
}
