// The last step of every tool call: a result that is still over the budget after its tool fitted it (an app
// method's big return, a long guide) becomes a readable head, a sentence saying what was left out, and a link to
// the whole value kept as a resource. Errors are cut below the hosts' cut for error texts.

import { fitError, headOf, resultChars } from "../answer/budget.ts";
import type { ContentBlock, ToolResult } from "../answer/result.ts";
import type { ResultStore } from "./results.ts";
import { RESULT_READS, RESULT_TTL_MS } from "./results.ts";

/** Room left beside the head for the note, the other blocks and the link. */
const ROOM = 2_000;

/**
 * The result within `budget` characters. The first text block is the value (every tool puts it first): over the
 * budget it is kept whole in `store` and cut to its head here; embedded guides become links to their resources.
 * `structured` says the tool declared an output schema: its structuredContent is required, and such tools fit
 * their own results (lists page), so it is kept; anywhere else it is the same value again and is dropped.
 */
export function fitResult(
  result: ToolResult,
  budget: number,
  store: ResultStore,
  structured: boolean,
): ToolResult {
  if (result.isError) return fitError(result);
  if (resultChars(result) <= budget) return result;
  const rest: ContentBlock[] = [];
  let value: string | null = null;
  for (const block of result.content) {
    if (block.type === "text" && value === null) value = block.text;
    else if (block.type === "resource") {
      rest.push({
        type: "resource_link",
        uri: block.resource.uri,
        name: block.resource.uri.split("/").slice(-3).join("/"),
        mimeType: block.resource.mimeType,
        description: "The guide, too long to show here: read it with resources/read.",
      });
    } else rest.push(block);
  }
  const fitted: ToolResult = { content: [] };
  if (structured && result.structuredContent !== undefined) {
    fitted.structuredContent = result.structuredContent;
  }
  const restChars = rest.reduce((n, b) => n + (b.type === "text" ? b.text.length : 200), 0);
  const structuredChars = fitted.structuredContent === undefined
    ? 0
    : JSON.stringify(fitted.structuredContent).length;
  const room = budget - ROOM - restChars - structuredChars;
  if (value === null || value.length <= Math.max(room, 0)) {
    fitted.content = [...(value === null ? [] : [{ type: "text" as const, text: value }]), ...rest];
    return fitted;
  }
  const json = value.startsWith("{") || value.startsWith("[") || value.startsWith('"');
  const uri = store.keep(value, json ? "application/json" : "text/plain");
  const head = headOf(value, Math.max(room, 1_000));
  const total = value.length.toLocaleString("en-US");
  const shown = head.length.toLocaleString("en-US");
  const where = uri === null
    ? "It is too large to keep for reading: ask for less (narrower arguments, or a method that pages)."
    : `The whole value is the resource ${uri}: read it with resources/read (kept ${
      RESULT_TTL_MS / 60_000
    } minutes, ${RESULT_READS} reads), or ask for less (narrower arguments, or a method that pages).`;
  fitted.content = [
    { type: "text", text: head },
    {
      type: "text",
      text: `[mero-mcp] Cut: this value is ${total} characters, over the ${
        budget.toLocaleString("en-US")
      } a result may carry (CALIMERO_MCP_RESULT_CHARS); the first ${shown} are above, cut mid-value. ${where}`,
    },
    ...rest,
    ...(uri === null ? [] : [{
      type: "resource_link" as const,
      uri,
      name: uri.slice("calimero://".length),
      mimeType: json ? "application/json" : "text/plain",
      size: new TextEncoder().encode(value).length,
      description: "The whole result, kept a short while.",
    }]),
  ];
  return fitted;
}
