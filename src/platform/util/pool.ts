/**
 * Maps `items` through `fn` with at most `limit` calls in flight, keeping the input order.
 * @param limit - concurrent calls (count, ≥ 1).
 * @returns the results, in the order of `items`.
 * @throws whatever `fn` throws (the remaining calls still settle first).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, lane));
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw (failure as PromiseRejectedResult).reason;
  return results;
}
