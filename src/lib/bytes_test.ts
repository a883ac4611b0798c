import assert from "node:assert/strict";
import { concatBytes } from "./bytes.ts";

Deno.test("chunks are joined in order; one chunk is returned as is; none is empty", () => {
  const a = new Uint8Array([1, 2]);
  assert.deepEqual(
    concatBytes([a, new Uint8Array([3]), new Uint8Array(0), new Uint8Array([4])]),
    new Uint8Array([1, 2, 3, 4]),
  );
  assert.equal(concatBytes([a]), a);
  assert.deepEqual(concatBytes([]), new Uint8Array(0));
});
