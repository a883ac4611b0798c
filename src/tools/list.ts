// Lists a node answers page by page: collected up to a limit, with the sentence a tool adds when it stopped there.

/** The most items a list tool collects, and the page size it asks for. */
export const LIST_LIMIT = 1_000;
export const PAGE_SIZE = 100;

/** Items collected from every page, and whether the list stopped at {@link LIST_LIMIT}. */
export interface Collected<T> {
  items: T[];
  truncated: boolean;
}

/**
 * Fetches pages of `PAGE_SIZE` until a short page, `LIST_LIMIT` items, or a page that adds nothing
 * new (a node that ignores `offset` would otherwise repeat its first page ten times). At the limit,
 * one more item is asked for, so a list of exactly `LIST_LIMIT` is not reported as cut short.
 */
export async function collectPages<T>(
  fetchPage: (page: { offset: number; limit: number }) => Promise<T[]>,
  key: (item: T) => string,
): Promise<Collected<T>> {
  const items: T[] = [];
  const seen = new Set<string>();
  const fresh = (page: T[]) =>
    page.filter((item) => {
      const k = key(item);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  while (true) {
    const page = await fetchPage({ offset: items.length, limit: PAGE_SIZE });
    const added = fresh(page);
    items.push(...added);
    if (items.length > LIST_LIMIT) return { items: items.slice(0, LIST_LIMIT), truncated: true };
    if (page.length < PAGE_SIZE || added.length === 0) return { items, truncated: false };
    if (items.length === LIST_LIMIT) {
      const more = fresh(await fetchPage({ offset: LIST_LIMIT, limit: 1 }));
      return { items, truncated: more.length > 0 };
    }
  }
}

/** The sentence a list tool adds when it stopped at the limit. */
export function truncationNote(what: string): string {
  return `Showing the first ${LIST_LIMIT} ${what}; the node has more, which this tool does not list.`;
}
