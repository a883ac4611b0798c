import assert from "assert";
import { blobIdOf, contentHash } from "./blob_hash.ts";
import { decodeBase58, encodeBase58 } from "./base58.ts";

Deno.test("base58 encoding reads back, leading zeros included", () => {
  for (
    const bytes of [
      new Uint8Array([0, 0, 1, 2, 255]),
      new Uint8Array(32).fill(7),
      new Uint8Array([0]),
    ]
  ) {
    assert.deepEqual(decodeBase58(encodeBase58(bytes)), bytes);
  }
});

Deno.test("a blob's id is a hash of its chunk hashes, never its content hash", async () => {
  const small = new TextEncoder().encode("hello");
  const content = await contentHash(small);
  const id = await blobIdOf(small);
  assert.notEqual(id, content);
  // One chunk: the id is sha256(sha256(bytes)).
  const inner = new Uint8Array(await crypto.subtle.digest("SHA-256", small));
  const outer = new Uint8Array(await crypto.subtle.digest("SHA-256", inner));
  assert.equal(id, encodeBase58(outer));
  assert.equal(content, encodeBase58(inner));
  // Two chunks: the id changes with the split, the content hash does not care.
  const big = new Uint8Array((1 << 20) + 10).fill(1);
  assert.notEqual(await blobIdOf(big), await contentHash(big));
});

Deno.test("the empty blob's id is sha256 of nothing, as core makes no chunk for no bytes", async () => {
  const empty = new Uint8Array(0);
  const nothing = encodeBase58(new Uint8Array(await crypto.subtle.digest("SHA-256", empty)));
  assert.equal(await blobIdOf(empty), nothing);
  assert.equal(await contentHash(empty), nothing);
});
