// Splits stdin into the JSON-RPC lines the transport takes. A line over MAX_LINE_BYTES is not kept: only its first
// and last KEPT_EDGE_BYTES are, to find the request's id there, so the error can go back under that id.

import { concatBytes } from "../lib/bytes.ts";
import { errorLine, KEPT_EDGE_BYTES, MAX_LINE_BYTES, oversizedRequestId } from "./relay.ts";

/** What becomes of each line. */
export interface LineHandlers {
  /** A complete line, without its newline (and a trailing `\r`). */
  line(text: string): void;
  /** A line too large to keep, with the id its edges show (null when they show none). */
  oversized(id: string | number | null): void;
}

/** Reads `readable` to its end, handing over each line as it completes. */
export async function readLines(
  readable: ReadableStream<Uint8Array>,
  handlers: LineHandlers,
): Promise<void> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  let oversized = false;
  /** Of a line too large to keep: its first and (so far) last KEPT_EDGE_BYTES. */
  let head: Uint8Array = new Uint8Array(0);
  let tail: Uint8Array = new Uint8Array(0);
  const finishLine = () => {
    if (oversized) {
      handlers.oversized(oversizedRequestId(decoder.decode(head), decoder.decode(tail)));
    } else if (size > 0) {
      const bytes = parts.length === 1 ? parts[0] : concatBytes(parts, size);
      handlers.line(decoder.decode(bytes).replace(/\r$/, ""));
    }
    parts = [];
    size = 0;
    oversized = false;
  };
  for await (const chunk of readable) {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!oversized) {
        size += end - start;
        if (end > start) parts.push(chunk.slice(start, end));
        if (size > MAX_LINE_BYTES) {
          oversized = true;
          head = edgeBytes(parts, "first");
          tail = edgeBytes(parts, "last");
          parts = [];
        }
      } else if (end > start) tail = edgeBytes([tail, chunk.subarray(start, end)], "last");
      if (newline === -1) break;
      finishLine();
      start = newline + 1;
    }
  }
  if (size > 0 || oversized) finishLine();
}

/** The first or last KEPT_EDGE_BYTES of the bytes `parts` hold together, copying only those. */
function edgeBytes(parts: Uint8Array[], which: "first" | "last"): Uint8Array {
  const ordered = which === "first" ? parts : [...parts].reverse();
  const picked: Uint8Array[] = [];
  let size = 0;
  for (const part of ordered) {
    if (size >= KEPT_EDGE_BYTES) break;
    const take = Math.min(part.length, KEPT_EDGE_BYTES - size);
    picked.push(which === "first" ? part.subarray(0, take) : part.subarray(part.length - take));
    size += take;
  }
  return concatBytes(which === "first" ? picked : picked.reverse(), size);
}

/** The JSON-RPC error line for a request too large to read. */
export function oversizedAnswer(id: string | number | null): string {
  return errorLine(
    id,
    -32600,
    `Request too large: a message may be at most ${MAX_LINE_BYTES} bytes.`,
  );
}
