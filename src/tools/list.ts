// Lists a node answers page by page, and lists as a tool returns them: from an offset, at most a limit, and no more
// than fits the result budget, with the offset to go on from. Every fixed list tool pages this one way.

import { z } from "zod";
import { fitItems, nextPageNote } from "../answer/budget.ts";
import type { Config } from "../config/config.ts";
import { output } from "./tool.ts";

/** The most items a list tool collects in one call, and the page size it asks the node for. */
export const LIST_LIMIT = 1_000;
export const PAGE_SIZE = 100;

/** Items collected from the node's pages, and whether the node has more after them. */
export interface Collected<T> {
  items: T[];
  /** The node has items after these (more than `max` were there). */
  truncated: boolean;
}

/**
 * Fetches pages of `PAGE_SIZE` from `start` until a short page, `max` items, or a page that adds nothing new (a
 * node that ignores `offset` would otherwise repeat its first page ten times). At `max`, one more item is asked
 * for, so a list of exactly `max` is not reported as going on.
 */
export async function collectPages<T>(
  fetchPage: (page: { offset: number; limit: number }) => Promise<T[]>,
  key: (item: T) => string,
  start = 0,
  max = LIST_LIMIT,
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
    const limit = Math.min(PAGE_SIZE, max - items.length);
    const page = await fetchPage({ offset: start + items.length, limit });
    const added = fresh(page);
    items.push(...added);
    if (items.length > max) return { items: items.slice(0, max), truncated: true };
    if (page.length < limit || added.length === 0) return { items, truncated: false };
    if (items.length === max) {
      const more = fresh(await fetchPage({ offset: start + max, limit: 1 }));
      return { items, truncated: more.length > 0 };
    }
  }
}

/** The paging arguments every fixed list tool takes. */
export const pageInput = {
  offset: z.number().int().min(0).max(1_000_000_000).optional().describe("From next_offset."),
  limit: z.number().int().min(1).max(LIST_LIMIT).optional().describe("At most this many."),
};

/** Paging arguments as a tool received them. */
export interface PageArgs {
  offset?: number;
  limit?: number;
}

/**
 * The characters a list's items may take in a result: the result carries them twice (text and structuredContent)
 * and a little of its own around them.
 */
export function itemsBudget(config: Pick<Config, "resultChars">): number {
  return Math.floor((config.resultChars - 1_000) / 2);
}

/**
 * One page of a list for a tool result: `items` are the list from `args.offset` on (at most the limit, already cut
 * where the node had more: `more`), cut again where the budget ends. The object to return under `key`, with
 * `next_offset` and a sentence when there is more.
 */
export function listPage<T>(
  key: string,
  items: T[],
  args: PageArgs,
  config: Pick<Config, "resultChars">,
  more = false,
): Record<string, unknown> {
  const offset = args.offset ?? 0;
  const limit = args.limit ?? LIST_LIMIT;
  const limited = items.slice(0, limit);
  const page = fitItems(limited, itemsBudget(config), offset, more || items.length > limit);
  const note = nextPageNote(key, page);
  return {
    [key]: page.items,
    ...(page.next_offset !== undefined ? { next_offset: page.next_offset } : {}),
    ...(note ? { note } : {}),
  };
}

/** The items of a list the node answers whole, from `args.offset` on, and whether any follow the limit. */
export function fromOffset<T>(all: T[], args: PageArgs): { items: T[]; more: boolean } {
  const offset = args.offset ?? 0;
  const limit = args.limit ?? LIST_LIMIT;
  return { items: all.slice(offset, offset + limit), more: all.length > offset + limit };
}

/** The output schema of a list tool: the items under `key`, where to go on from, and any more properties. */
export function listOutput(
  key: string,
  more: Parameters<typeof output>[0] = {},
): Record<string, unknown> {
  return output({ [key]: "array", next_offset: "integer", note: "string", ...more }, [key]);
}
