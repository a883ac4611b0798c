// How big a tool result may be. Hosts cap what a tool returns (Claude Code: 25,000 tokens; over 50,000 characters
// it saves the result to a file; an error's text is cut near 11,000 characters), so every result is measured and
// kept under a budget: lists stop at the item that would cross it and say where to go on from, an error's text is
// cut below the hosts' cut. The server applies what is left (a value too big to page) in src/server/fit.ts.

import type { ToolResult } from "./result.ts";

/** An `isError` text is kept under this many characters (hosts cut near 11,000). */
export const ERROR_CHARS = 9_500;

/** The characters a result costs: its texts, embedded resources' texts and its structured value. */
export function resultChars(result: ToolResult): number {
  let chars = 0;
  for (const block of result.content) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "resource") chars += block.resource.text.length;
    else chars += block.uri.length + 100;
  }
  if (result.structuredContent !== undefined) {
    chars += JSON.stringify(result.structuredContent).length;
  }
  return chars;
}

/**
 * The first `max` characters of `text`, never ending inside a surrogate pair (a cut emoji would make the rest of
 * the JSON-RPC line invalid UTF-16 for some clients).
 */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return text.slice(0, Math.max(0, end));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** An error result whose texts together stay under {@link ERROR_CHARS}, with a word where it was cut. */
export function fitError(result: ToolResult): ToolResult {
  if (resultChars(result) <= ERROR_CHARS) return result;
  let left = ERROR_CHARS - 200;
  const content = result.content.flatMap((block) => {
    if (block.type !== "text" || left <= 0) return [];
    const text = block.text.length <= left
      ? block.text
      : `${headOf(block.text, left)}… [cut: ${
        block.text.length.toLocaleString("en-US")
      } characters in all]`;
    left -= text.length;
    return [{ type: "text" as const, text }];
  });
  return { content, isError: true };
}

/** The items of a list that fit a budget, and where the next call starts. */
export interface Page<T> {
  items: T[];
  /** The offset to pass for the next items; absent when this page reaches the end. */
  next_offset?: number;
}

/**
 * The longest run of `items` (from the start) whose JSON fits in `chars`, at least one item: each item is
 * measured once. `offset` is where `items` start in the whole list; `more` says the whole list goes on after them.
 */
export function fitItems<T>(items: T[], chars: number, offset = 0, more = false): Page<T> {
  let used = 2; // the brackets
  let count = 0;
  for (const item of items) {
    const size = JSON.stringify(item)?.length ?? 4;
    if (count > 0 && used + size + 1 > chars) break;
    used += size + (count > 0 ? 1 : 0);
    count++;
  }
  const cut = count < items.length;
  const page: Page<T> = { items: cut ? items.slice(0, count) : items };
  if (cut || more) page.next_offset = offset + count;
  return page;
}

/** The sentence a list adds when it stopped before the end, naming the argument that goes on. */
export function nextPageNote(what: string, page: Page<unknown>): string | undefined {
  if (page.next_offset === undefined) return undefined;
  return `More ${what} follow: call again with offset ${page.next_offset}.`;
}
