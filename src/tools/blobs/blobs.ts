// The node's blobs: upload one (its hash checked against its content), list them, delete one (never an app's).

import { contextArg } from "../context_arg.ts";
import { z } from "zod";
import {
  callOptions,
  confirmed,
  defineTool,
  DESTRUCTIVE,
  output,
  READ_ONLY,
  type Tool,
  whileWaiting,
  WRITE,
} from "../tool.ts";
import { jsonResult } from "../../answer/result.ts";
import { blobIdOf, contentHash } from "../../primitives/blob_hash.ts";
import { oneLine } from "../../lib/text.ts";
import { fromOffset, listOutput, listPage, pageInput } from "../list.ts";
import type { ToolDeps } from "../deps.ts";
import { contextParam, nonEmpty } from "../params.ts";

/** `upload_blob` stores up to 10 MiB of bytes in the node's blob store. */
export function uploadBlob(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "upload_blob",
    title: "Upload blob",
    description: "Stores up to 10 MiB of bytes in the node's blob store.",
    group: "blobs",
    input: z.object({
      data: z.string().describe("The bytes, base64."),
      hash: nonEmpty("sha256 of the bytes, base58 (not a blob id).").optional(),
      context: contextParam.optional(),
    }),
    output: output({ blobId: "string", size: "integer", hash: "string" }, ["blobId"]),
    annotations: WRITE,
    run: async ({ data, hash, context }, call) => {
      const bytes = decodeBase64(data);
      const content = await contentHash(bytes);
      if (hash !== undefined && hash !== content) {
        throw new Error(await hashProblem(hash, bytes, content));
      }
      const o = callOptions(call);
      const contextId = context === undefined ? undefined : await contextArg(deps, context, o);
      const blob = await whileWaiting(
        call,
        "Uploading",
        admin.uploadBlob(bytes, { hash, contextId }, o),
      );
      return jsonResult({ blobId: blob.blobId, size: blob.size, hash: content });
    },
  });
}

/** `list_blobs` lists the node's blobs with their sizes. */
export function listBlobs(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "list_blobs",
    title: "List blobs",
    description: "Lists the node's blobs with their sizes.",
    group: "blobs",
    input: z.object({ ...pageInput }),
    output: listOutput("blobs"),
    annotations: READ_ONLY,
    large: true,
    run: async (args, call) => {
      const { items, more } = fromOffset((await admin.listBlobs(callOptions(call))).blobs, args);
      return jsonResult(listPage("blobs", items, args, deps.config, more));
    },
  });
}

/** `delete_blob` deletes a blob (refused while an installed app uses it). */
export function deleteBlob(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "delete_blob",
    title: "Delete blob",
    description: "Deletes a blob (refused while an installed app uses it).",
    group: "blobs",
    input: z.object({ blob: nonEmpty("Blob id (base58).") }),
    output: output({ blobId: "string", deleted: "boolean" }, ["blobId"]),
    annotations: DESTRUCTIVE,
    run: async ({ blob }, call) =>
      await confirmed(
        call,
        `Delete blob ${blob} from this node? This cannot be undone.`,
        { blob },
        async () => jsonResult(await admin.deleteBlob(blob, callOptions(call))),
      ),
  });
}

/** The largest blob `upload_blob` accepts, decoded. */
export const MAX_BLOB_BYTES = 10 * 1024 * 1024;

/**
 * Why an upload's `hash` is refused before anything is sent: the node checks it against the content's sha256, and
 * a mismatch there is a bare 500 after the whole upload. A blob id (a hash of chunk hashes) is the usual mistake.
 */
async function hashProblem(given: string, bytes: Uint8Array, content: string): Promise<string> {
  const mistake = given === await blobIdOf(bytes)
    ? "That is these bytes' blob id, a hash of their chunk hashes; the node checks the content hash instead"
    : "It does not match these bytes: the node checks it against their sha256";
  return `hash ${
    oneLine(given, 80)
  } was not sent. ${mistake} (${content}). Pass that, or leave hash out.`;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes standard or URL-safe base64 (whitespace ignored). The decoded size is computed from the text
 * first, so more than {@link MAX_BLOB_BYTES} is refused before anything is decoded or uploaded.
 */
export function decodeBase64(data: string): Uint8Array {
  const text = data.replace(/\s+/g, "").replace(/-/g, "+").replace(/_/g, "/");
  if (!BASE64.test(text) || text.replace(/=+$/, "").length % 4 === 1) {
    throw new Error("data is not valid base64; pass the bytes base64-encoded.");
  }
  const unpadded = text.replace(/=+$/, "");
  const size = Math.floor(unpadded.length * 3 / 4);
  if (size > MAX_BLOB_BYTES) {
    throw new Error(
      `The blob is ${size} bytes; upload_blob takes at most ${MAX_BLOB_BYTES} bytes (10 MiB). Nothing was uploaded.`,
    );
  }
  const padded = unpadded + "=".repeat((4 - unpadded.length % 4) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
