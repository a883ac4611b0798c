// The two hashes of a blob, as core computes them (crates/store/blobs/src/lib.rs): the content hash, sha256 of the
// bytes, which is what an upload's `hash` is checked against (crates/node/primitives/src/client/blob.rs);
// and the blob id, sha256 of the chunk ids, each chunk's id the sha256 of its 1 MiB of bytes (lib.rs)
// — so even a one-chunk blob's id is sha256(sha256(bytes)), never its content hash. Both base58.

import { encodeBase58 } from "./base58.ts";

/** core's blob chunk size (crates/store/blobs/src/lib.rs). */
export const BLOB_CHUNK_BYTES = 1 << 20;

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
}

/** The content hash the node checks an upload's `hash` against: sha256 of the bytes, base58. */
export async function contentHash(bytes: Uint8Array): Promise<string> {
  return encodeBase58(await sha256(bytes));
}

/**
 * The id the node will give these bytes: sha256 of the concatenated sha256 of each 1 MiB chunk, base58. No bytes
 * make no chunk, so the empty blob's id is sha256 of nothing (crates/store/blobs/src/lib.rs).
 */
export async function blobIdOf(bytes: Uint8Array): Promise<string> {
  const ids: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += BLOB_CHUNK_BYTES) {
    ids.push(await sha256(bytes.subarray(at, at + BLOB_CHUNK_BYTES)));
  }
  const joined = new Uint8Array(ids.length * 32);
  ids.forEach((id, i) => joined.set(id, i * 32));
  return encodeBase58(await sha256(joined));
}
