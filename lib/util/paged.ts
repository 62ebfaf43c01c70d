// Reading every item of a paged read (the store's listPipelines, listClusters, …), one page after the other.

/** Every item of a paged read, one page after the other, until a page comes without a cursor. */
export async function listAll<T>(
  list: (page: { cursor?: string }) => Promise<{ items: readonly T[]; cursor?: string }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ cursor });
    items.push(...page.items);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return items;
}
