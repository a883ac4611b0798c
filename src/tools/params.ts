// What the fixed tools share: one definition (and one description) per identifier parameter, plus the
// per-call helpers every handler uses (call options, progress while waiting, paging, context aliases).

import { z } from "zod";
import type { CallOptions } from "../mero/client.ts";
import type { ToolContext } from "./tool.ts";
import type { ToolResult } from "../errors.ts";
import { ALIAS_PATTERN, isAlias, resolveContext } from "../calls/gate.ts";

/** A string parameter that must not be empty (checked without widening the advertised schema). */
export function nonEmpty(description: string) {
  return z.string().refine((s) => s.trim() !== "", "must not be empty").describe(description);
}

/** An installed application by any name apps.md §2 resolves. */
export const applicationParam = nonEmpty("App id, package or name.");

/** A context by id only (for contexts this node may not know yet). */
export const contextIdParam = nonEmpty("Context id (base58).");

/** A context by id or by one of this node's aliases. */
export const contextParam = nonEmpty("Context id or alias.");

/** An alias as the node accepts it (a plain-text 400 or 422 otherwise). */
export const aliasParam = z.string().regex(
  ALIAS_PATTERN,
  "an alias is 1 to 50 letters, digits, '.', '_' or '-'",
).describe("Alias: 1-50 of A-Z a-z 0-9 . _ -");

/** A service of a multi-service app. */
export const serviceParam = nonEmpty("For a multi-service app.");

/** A namespace (the root group of an application). */
export const namespaceParam = nonEmpty("Namespace id (64 hex).");

/** A group (a namespace is a group too). */
export const groupParam = nonEmpty("Group id (64 hex).");

/** Who may join a subgroup. */
export const visibilityParam = z.enum(["open", "restricted"]).describe(
  "open: namespace members may join; restricted (default): only added members.",
);

/** Every node call of one tool call carries the request's abort signal and trace context. */
export function callOptions(ctx: ToolContext, timeoutMs?: number): CallOptions {
  const options: CallOptions = { signal: ctx.signal };
  if (ctx.traceparent !== undefined) options.traceparent = ctx.traceparent;
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  return options;
}

/** How often a long operation reports progress (runtime.md §8). */
export const PROGRESS_INTERVAL_MS = 5_000;

/**
 * Runs `work` and, until it settles, sends an MCP progress notification every interval (elapsed
 * seconds as progress), so clients that honour progress keep waiting past their own timeout.
 */
export async function whileWaiting<T>(
  ctx: ToolContext,
  what: string,
  work: Promise<T>,
  intervalMs = PROGRESS_INTERVAL_MS,
): Promise<T> {
  const started = Date.now();
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    ctx.progress(seconds, `${what}: still waiting for the node (${seconds} s)`);
  }, intervalMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

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

/** Adds a second text block (e.g. "stopped at 1,000") to a result. */
export function withNote(result: ToolResult, note: string | null): ToolResult {
  if (note === null) return result;
  return { ...result, content: [...result.content, { type: "text", text: note }] };
}

/** The sentence a list tool adds when it stopped at the limit. */
export function truncationNote(what: string): string {
  return `Showing the first ${LIST_LIMIT} ${what}; the node has more, which this tool does not list.`;
}

/**
 * The context id behind a context id or alias: a value in the id form is used as is, anything else
 * is looked up as an alias on this node (apps.md §6); an unknown alias is an error saying what to pass.
 */
export async function contextIdOf(
  value: string,
  lookupAlias: (name: string) => Promise<string | null>,
): Promise<string> {
  const id = await resolveContext(value, lookupAlias);
  if (id !== null) return id;
  if (!isAlias(value)) {
    throw new Error(
      `"${value}" is neither a context id nor a possible alias (aliases are 1 to 50 letters, digits, '.', '_' or '-'). Pass a context id (list_contexts shows them) or an existing alias.`,
    );
  }
  throw new Error(
    `"${value}" is neither a context id nor an alias on this node. Pass a context id (list_contexts shows them) or an existing alias.`,
  );
}
