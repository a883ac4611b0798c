// Reading a node answer with a byte cap: a declared `content-length` over the cap is refused before
// reading, and a body without one (or an encoded one) is read as a stream and cut off at the cap, counting
// inflated bytes, so no answer — however large, however compressed — is ever held whole in memory.

import { concatBytes } from "../lib/bytes.ts";

const MiB = 1024 * 1024;

/**
 * The most bytes read of a JSON answer. The largest legitimate ones (a page of 100 contexts, the
 * application list, an ABI manifest) are far below 1 MiB; 16 MiB leaves a wide margin and still
 * bounds what one call can make the server hold.
 */
export const JSON_ANSWER_LIMIT = 16 * MiB;

/**
 * The most bytes read of a raw blob (`GET /blobs/:id`). mero-mcp downloads blobs only to read an
 * app's WASM bytecode when the node has no ABI route; app bytecode is usually under a few MiB, and
 * 64 MiB still fits a large unoptimised debug build while bounding memory per call.
 */
export const BLOB_ANSWER_LIMIT = 64 * MiB;

/**
 * Reads the response body, or returns null — having cancelled the body — when it is (or declares
 * itself) larger than `limit` bytes. Transport errors while reading propagate.
 */
export async function readBody(response: Response, limit: number): Promise<Uint8Array | null> {
  if (Number(response.headers.get("content-length")) > limit) {
    response.body?.cancel().catch(() => {});
    return null;
  }
  if (response.body === null) return new Uint8Array(0);
  // A declared length within the limit is read in one go (the common case, and much cheaper than a stream);
  // a body longer than it declared is cut by the runtime, so the limit still holds. Not so for an encoded
  // body: fetch inflates gzip/br transparently but keeps the compressed `content-length`, so those are
  // always counted as they inflate.
  const encoding = response.headers.get("content-encoding");
  if (response.headers.has("content-length") && (encoding === null || encoding === "identity")) {
    return new Uint8Array(await response.arrayBuffer());
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

/** A byte count for messages: whole MiB when exact ("16 MiB"), else bytes. */
export function formatBytes(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`;
}
