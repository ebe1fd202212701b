/**
 * Grouping of items by a key, as ES2024's `Map.groupBy` does (ECMAScript 2024, "Map.groupBy"), which the runtimes
 * Assent supports have but its TypeScript library target (ES2022) does not declare.
 */

/**
 * Groups `items` by `key`: each group keeps the items' order, and the groups come in the order their keys first
 * appear.
 * @param key - the group of an item (compared as `Map` keys are, by SameValueZero).
 */
export function groupBy<T, K>(items: Iterable<T>, key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
