/**
 * What the consent domain offers the others: an organisation's live catalogue read fresh, and the
 * SQL of the counting rule for statements that combine consents with other things in one round
 * trip (the recipient scan of a special consent request). Other domains use this module, never
 * `consent/*-store.ts` (docs/development.md, code layout).
 */
export {
  /**
   * An organisation's catalogue as of one `catalogue_version`: its live purposes, each with its live data attributes.
   */
  type Catalogue,
  /** A live purpose with its live data attributes, in link order. */
  type CataloguePurpose,
  /**
   * Reads an organisation's catalogue in one prepared statement, bypassing the per-process cache.
   * @returns null when the organisation does not exist.
   */
  loadCatalogue,
} from '../catalogue/store.js';
export {
  /**
   * A stored attribute consent `c` that counts at `now()`: Allow, or an AskMe that has not run out
   * (docs/api.md "Count"; `counts` in `values.ts` is the same rule for one consent in memory).
   */
  COUNTING,
} from '../listings/store.js';
