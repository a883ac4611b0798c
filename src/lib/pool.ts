// Bounded concurrency: work over outside data (one request per app, say) runs at most N at a time, so a node
// with thousands of apps cannot make the server open thousands of sockets at once.

/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results keep the input order. A rejection
 * rejects the whole map once the calls in flight have settled, like `Promise.all`.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index], index);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  return results;
}
