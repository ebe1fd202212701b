/**
 * The nesting limit of request data (OWASP API Security Top 10 2023, API4 "Unrestricted Resource Consumption": stack
 * exhaustion by deeply nested input): no operation of the API takes data nested deeper than a few levels, and every
 * recursive consumer (validation, key canonicalisation, serialisation, storage) is safe below this bound.
 */

/** Deepest nesting of arrays and objects accepted in a request body or query (levels; `{}` is 1). */
export const MAX_INPUT_DEPTH = 64;

/**
 * Whether `value` nests arrays or objects more than `limit` levels deep. Iterative (an explicit
 * stack) and stops at the first level past the limit, so its cost is bounded by the input's size.
 * @param value - parsed JSON or form data.
 * @param limit - the deepest nesting allowed (levels).
 */
export function nestedDeeperThan(value: unknown, limit: number = MAX_INPUT_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
