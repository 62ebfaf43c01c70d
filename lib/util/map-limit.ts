// Bounded concurrency: reads from leaf clusters, Git host requests. A pipeline with many targets, or a repository
// with many files, is worked through a few items at a time.

/**
 * Runs `work` over `items` with at most `limit` at once, keeping the order of results. Once one item fails no further
 * item is started (the call rejects with that failure; what is already running finishes).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
