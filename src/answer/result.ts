// What a tool call answers: the MCP result shape as mero-mcp builds it, and the two ways to make one. Every tool,
// the gate's refusals and the generated tools return through here, so the content blocks they may carry are
// declared once: text, and an embedded resource (an app's guide).

import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { describeError, isBug } from "./errors.ts";
import { log } from "../lib/log.ts";
import { stringifyJson } from "../lib/json.ts";
import { escapeHidden } from "../lib/text.ts";

/** A text content block. */
export type TextBlock = { type: "text"; text: string };

/** An embedded resource content block (an app's guide, as Markdown). */
export type ResourceBlock = {
  type: "resource";
  resource: { uri: string; mimeType: string; text: string };
};

/** A link to a resource the client reads with resources/read (a result too big to return whole, a guide). */
export type ResourceLinkBlock = {
  type: "resource_link";
  uri: string;
  name: string;
  mimeType?: string;
  /** Its size in bytes, when known. */
  size?: number;
  description?: string;
};

/** Every content block a mero-mcp tool returns. */
export type ContentBlock = TextBlock | ResourceBlock | ResourceLinkBlock;

/** An MCP tool result as mero-mcp builds it (a type, not an interface, so it is assignable to the SDK's). */
export type ToolResult = {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** What a tool call answers: a result, or a question for the person that the client answers and retries. */
export type CallAnswer = ToolResult | InputRequiredResult;

/** Asks the person before what cannot be undone, about a resolved target: null to go ahead (see tools/tool.ts). */
export type Ask = (question: string, target: unknown) => Promise<CallAnswer | null>;

/** A failed tool call: one text block `Error: <message>`, flagged `isError`, never a protocol error. */
export function errorResult(error: unknown): ToolResult {
  return { content: [{ type: "text", text: `Error: ${describeError(error)}` }], isError: true };
}

/**
 * What a tool answers when its run threw: a refusal or the node's error as the agent should read it; a bug of ours
 * ({@link isBug}) logged with its stack on stderr and told as ours, so the agent does not take it for its own mistake.
 */
export function failureResult(tool: string, error: unknown): ToolResult {
  if (!isBug(error)) return errorResult(error);
  log.error(`${tool} failed unexpectedly: ${error instanceof Error ? error.stack : String(error)}`);
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return errorResult(
    new Error(
      `mero-mcp failed unexpectedly running ${tool} (${what}). This is a bug in mero-mcp, not a problem with the call; the details are in its log (stderr). Retry, and report it with that log if it happens again.`,
    ),
  );
}

/**
 * A successful tool call: a string as is, anything else as compact JSON (big integers exact).
 * `structured` becomes `structuredContent` and must be JSON-safe (no bigint) for the transport.
 */
export function textResult(value: unknown, structured?: Record<string, unknown>): ToolResult {
  const text = typeof value === "string" ? value : stringifyJson(value);
  const result: ToolResult = { content: [{ type: "text", text }] };
  if (structured !== undefined) result.structuredContent = structured;
  return result;
}

/**
 * A successful call of a tool with an output schema: the value as compact JSON text and as structuredContent (hosts
 * read one or the other). Say everything in the value (notes included): some hosts show the model only that.
 */
export function jsonResult(value: Record<string, unknown>): ToolResult {
  const text = stringifyJson(value);
  // Node values may hold integers beyond 2^53 (kept exact in the text); the structured copy is plain JSON.
  return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) };
}

/** The result's text blocks joined by newlines (resource blocks left out): how a batch item shows a result. */
export function resultText(result: ToolResult): string {
  return result.content.flatMap((block) => block.type === "text" ? [block.text] : []).join("\n");
}

/** Adds a second text block (e.g. "stopped at 1,000") to a result. */
export function withNote(result: ToolResult, note: string | null): ToolResult {
  if (note === null) return result;
  return { ...result, content: [...result.content, { type: "text", text: note }] };
}

/**
 * The result as it may reach the model: every text (blocks, an embedded guide, the strings and keys of
 * `structuredContent`) with invisible and direction-changing characters shown as escapes. Apps, guides and nodes
 * are other parties; nothing of theirs passes through raw. Applied once, to every tool result, by the server.
 */
export function escapeResult(result: ToolResult): ToolResult {
  const content = result.content.map((block): ContentBlock => {
    if (block.type === "text") return { type: "text", text: escapeHidden(block.text) };
    if (block.type === "resource") {
      return { ...block, resource: { ...block.resource, text: escapeHidden(block.resource.text) } };
    }
    return block; // our own link: a URI we made and a name we wrote
  });
  const escaped: ToolResult = { ...result, content };
  if (result.structuredContent !== undefined) {
    escaped.structuredContent = escapeStrings(result.structuredContent) as Record<string, unknown>;
  }
  return escaped;
}

/**
 * The value with its strings and keys escaped ({@link escapeHidden}); the very same value (no copy) where nothing
 * needed escaping. For structured results and list entries.
 */
export function escapeStrings(value: unknown): unknown {
  if (typeof value === "string") return escapeHidden(value);
  if (Array.isArray(value)) {
    const items = value.map(escapeStrings);
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    const escaped = entries.map(([key, item]) => [escapeHidden(key), escapeStrings(item)] as const);
    if (escaped.every(([key, item], i) => key === entries[i][0] && item === entries[i][1])) {
      return value;
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of escaped) {
      Object.defineProperty(out, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
