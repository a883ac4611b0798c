// The messages main and the server worker exchange, and the bounds of a stdin line. The worker speaks MCP over
// stdio itself; main starts it, hands it the config, and waits for it to finish.

import type { Config } from "../config/config.ts";

/**
 * Main → worker. The first message is always `config`. With `ownStdio` the worker reads stdin and writes stdout
 * itself (the product: no hop through main for each message); without, main relays lines to it and its output back
 * (`line`, `out`, `written`: the profiling entry, tests/bench/inline_main.ts).
 */
export type ToWorker =
  /** `httpToken`: the content of `--http-token-file` (HTTP mode only; never logged). */
  | { type: "config"; config: Config; httpToken?: string; ownStdio?: boolean }
  | { type: "line"; line: string }
  /** `bytes` of the worker's output were written to stdout (the worker paces app calls by what is still queued). */
  | { type: "written"; bytes: number }
  | { type: "close" };

/** Worker → main. `ready` comes first, once the worker's module graph has loaded. */
export type FromWorker =
  | { type: "ready" }
  /** One or more complete stdout lines (newline-terminated UTF-8), transferred rather than copied. */
  | { type: "out"; bytes: Uint8Array }
  | { type: "fatal"; message: string }
  /** The worker reached the end of stdin (with `ownStdio`): main waits at most the drain grace from now. */
  | { type: "stdin-closed" }
  /** Answer to `close`: every request that was in flight has been answered (or the grace period ran out). */
  | { type: "drained" };

/** A JSON-RPC error answer as one line (without its newline): what the server says of a line it cannot take. */
export function errorLine(id: string | number | null, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
}

/** How long the worker keeps answering in-flight requests after stdin closed. */
export const DRAIN_GRACE_MS = 2000;

/** Largest stdin line main accepts; a longer one gets a JSON-RPC error and is dropped. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** How much of a too-large line's start and end main keeps, to find the request's id there. */
export const KEPT_EDGE_BYTES = 4096;

type RequestId = string | number;

/**
 * The id of a request whose line was too large to read whole, from the line's start and end only: the `id` member
 * of the top-level object when it comes before anything cut off, or when it is the object's last member. Null when
 * neither shows one, so the answer goes out with `id: null` as JSON-RPC allows.
 */
export function oversizedRequestId(head: string, tail: string): RequestId | null {
  return idInHead(head) ?? idInTail(tail);
}

/** Walks the top-level members of the object that `head` starts, until `id` or the end of what was kept. */
function idInHead(head: string): RequestId | null {
  let i = skipSpace(head, 0);
  if (head[i] !== "{") return null;
  i++;
  for (;;) {
    i = skipSpace(head, i);
    const key = readString(head, i);
    if (key === null) return null;
    i = skipSpace(head, key.end);
    if (head[i] !== ":") return null;
    i = skipSpace(head, i + 1);
    if (key.value === "id") return readId(head, i);
    const end = skipValue(head, i);
    if (end === null) return null;
    i = skipSpace(head, end);
    if (head[i] !== ",") return null;
    i++;
  }
}

/** `"id": <value> }` at the very end: the top-level object's last member. */
function idInTail(tail: string): RequestId | null {
  const m = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$/.exec(tail);
  return m ? readId(m[1], 0) : null;
}

function readId(text: string, at: number): RequestId | null {
  const string = readString(text, at);
  if (string !== null) return string.value;
  const number = /^-?\d{1,15}(?![\d.eE])/.exec(text.slice(at, at + 17));
  return number ? Number(number[0]) : null;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && " \t\r\n".includes(text[at])) at++;
  return at;
}

/** A JSON string literal starting at `at`: its value and where it ends; null when it is not one or is cut off. */
function readString(text: string, at: number): { value: string; end: number } | null {
  if (text[at] !== '"') return null;
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') {
      try {
        return { value: JSON.parse(text.slice(at, i + 1)), end: i + 1 };
      } catch {
        return null;
      }
    }
  }
  return null;
}

/**
 * Where the JSON value starting at `at` ends — at the `,` or `}` that follows it in the enclosing object — or null
 * when it is cut off or malformed. Strings are skipped whole, so a bracket inside one does not count.
 */
function skipValue(text: string, at: number): number | null {
  let depth = 0;
  let i = at;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const string = readString(text, i);
      if (string === null) return null;
      i = string.end;
      continue;
    }
    if (depth === 0 && (c === "," || c === "}" || c === "]")) return i;
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    i++;
  }
  return null;
}
