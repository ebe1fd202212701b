/** PostgreSQL `text` cannot hold U+0000; inputs are checked for it before they reach a query. */

/**
 * The JSON path of the first string in `value` that contains U+0000, or undefined. The walk is
 * iterative (an explicit stack), so no nesting depth can overflow the call stack.
 * @param value - parsed JSON.
 * @param at - the path of `value` itself, e.g. `$` or `body`.
 */
export function findNul(value: unknown, at: string): string | undefined {
  const stack: [unknown, string][] = [[value, at]];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return path;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], `${path}[${i}]`]);
    } else if (item && typeof item === 'object') {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${path}.${entries[i]![0]}`]);
    }
  }
  return undefined;
}
