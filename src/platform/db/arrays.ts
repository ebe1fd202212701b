/**
 * PostgreSQL array literals for statement parameters (`$1::uuid[]`, `$1::text[]`, …), so that a
 * list travels as one parameter whichever driver is behind the store (pg and PGlite serialise
 * JavaScript arrays differently). PostgreSQL 15 §8.15.6: each element is double-quoted with `"`
 * and `\` escaped, so any text is safe; a null element is the unquoted `NULL`.
 */

/**
 * The array literal of `items`.
 * @param items - element texts (a UUID, a hex string, an ISO 8601 instant, …) or null.
 * @returns e.g. `{"a","b",NULL}`; `{}` for none.
 */
export function arrayLiteral(items: ReadonlyArray<string | null>): string {
  return `{${items.map((item) => (item === null ? 'NULL' : `"${item.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
}
