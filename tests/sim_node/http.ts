// Response builders for the node's four error shapes and its envelopes. Every JSON body goes through
// `stringifyExact`, so 64-bit integers leave the node with their exact digits.

import { stringifyExact } from "./json.ts";
import type { CoreGeneration } from "./types.ts";

const JSON_HEADERS = { "content-type": "application/json" };

/** A JSON body with the given status, written with exact integer digits. */
export function json(value: unknown, status = 200, headers: HeadersInit = {}): Response {
  return new Response(stringifyExact(value), {
    status,
    headers: { ...JSON_HEADERS, ...headers as Record<string, string> },
  });
}

/** The usual success envelope `{ data: <payload> }`. */
export function data(payload: unknown, status = 200): Response {
  return json({ data: payload ?? null }, status);
}

/** Error shape 1: JSON `{ error: "<message>" }`. */
export function jsonError(status: number, message: string): Response {
  return json({ error: message }, status);
}

/** Error shape 2: plain text (install failures, malformed path ids, wrong content type). */
export function text(status: number, message: string): Response {
  return new Response(message, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

/** Error shapes 3 and 4: no body at all, optionally with headers (`X-Auth-Error`, `Retry-After`). */
export function bare(status: number, headers: HeadersInit = {}): Response {
  return new Response(null, { status, headers });
}

/**
 * A refusal as the node's core generation answers it: a bare 500 "Internal server error" at 051f0848, or the
 * newer branch's typed status with core's own message (`SimNodeOptions.core`; newer crates/server/src/admin/
 * service.rs `parse_api_error`, `ApiError` → `{"error": message}`).
 */
export function refusal(
  node: { core: CoreGeneration },
  status: number,
  message: string,
): Response {
  return node.core === "newer"
    ? jsonError(status, message)
    : jsonError(500, "Internal server error");
}
