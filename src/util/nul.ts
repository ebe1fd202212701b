/** PostgreSQL `text` cannot hold U+0000; inputs are checked for it before they reach a query. */

/**
 * The JSON path of the first string in `value` that contains U+0000, or undefined.
 * @param value - parsed JSON.
 * @param at - the path of `value` itself, e.g. `$` or `body`.
 */
export function findNul(value: unknown, at: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findNul(item, `${at}[${i}]`);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = findNul(item, `${at}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}
