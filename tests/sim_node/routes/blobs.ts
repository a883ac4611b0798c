// Blob routes: raw-byte upload with optional `hash` and `context_id`, snake_case payloads, raw
// download, and a flat delete body (403 while an installed app's bytecode references the blob).

import { base58Encode } from "../base58.ts";
import { bare, data, json, jsonError, text } from "../http.ts";
import { blobIdOf, isBase58Id, sha256 } from "../ids.ts";
import { appReferencing } from "../install.ts";
import type { Route } from "../router.ts";

const A = "/admin-api";

/** The body size past which the newer simulated core answers 413 (a stand-in for the node's configured limit). */
const MAX_SIM_BLOB = 64 << 20;

/** The blob routes. */
export const blobRoutes: Route[] = [
  {
    method: "PUT",
    pattern: `${A}/blobs`,
    handler: async ({ node, req, url }) => {
      const contextId = url.searchParams.get("context_id");
      if (contextId !== null && !isBase58Id(contextId)) {
        return text(400, `Failed to deserialize query string: invalid context_id "${contextId}"`);
      }
      // `hash` parses as a base58 32-byte Hash, else a 400 (core admin/handlers/blob.rs).
      const hash = url.searchParams.get("hash");
      if (hash !== null && !isBase58Id(hash)) {
        return jsonError(400, "The provided hash is not a valid format");
      }
      const bytes = new Uint8Array(await req.arrayBuffer());
      const blobId = blobIdOf(bytes);
      // Newer core refuses a body over its limit with 413 (newer admin/handlers/blob.rs); the limit is not
      // simulated, only a body of more than `MAX_SIM_BLOB` answers it.
      if (node.core === "newer" && bytes.length > MAX_SIM_BLOB) {
        return jsonError(413, "blob is larger than this node accepts");
      }
      // The bytes are stored first, then `hash` is compared with the content's sha256 (not the blob id), so a
      // mismatch leaves the blob stored (crates/node/primitives/src/client/blob.rs). 051f0848 answers the
      // failed store with a 500 (blob.rs); newer core with a 400 (`BlobRejected`).
      node.blobs.set(blobId, { bytes, contextId: contextId ?? undefined });
      if (hash !== null && hash !== base58Encode(sha256(bytes))) {
        return node.core === "newer"
          ? jsonError(400, "blob rejected: its content does not match the given hash")
          : jsonError(500, "Failed to store blob: fatal: blob hash mismatch");
      }
      return data({ blob_id: blobId, size: bytes.length });
    },
  },
  {
    method: "GET",
    pattern: `${A}/blobs`,
    handler: ({ node }) =>
      data({
        blobs: [...node.blobs].map(([blob_id, b]) => ({ blob_id, size: b.bytes.length })),
      }),
  },
  {
    method: "GET",
    pattern: `${A}/blobs/:blob`,
    handler: ({ node, params }) => {
      const blob = node.blobs.get(params.blob);
      if (!blob) return jsonError(404, "Blob not found");
      return new Response(blob.bytes.slice(), {
        headers: { "content-type": "application/octet-stream" },
      });
    },
  },
  {
    method: "DELETE",
    pattern: `${A}/blobs/:blob`,
    handler: ({ node, params }) => {
      if (!node.blobs.has(params.blob)) return jsonError(404, "Blob not found");
      const app = appReferencing(node, params.blob);
      if (app) {
        return jsonError(
          403,
          `Blob ${params.blob} is the bytecode of installed application ${app}`,
        );
      }
      node.blobs.delete(params.blob);
      return json({ blob_id: params.blob, deleted: true });
    },
  },
  {
    method: "HEAD",
    pattern: `${A}/blobs/:blob`,
    handler: ({ node, params }) => bare(node.blobs.has(params.blob) ? 200 : 404),
  },
];
