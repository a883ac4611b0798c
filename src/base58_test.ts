import assert from "assert";
import { decodeBase58, isNodeId } from "./base58.ts";

Deno.test("base58 decodes known vectors and refuses characters outside the alphabet", () => {
  assert.deepEqual([...decodeBase58("2g")!], [0x61]);
  assert.deepEqual([...decodeBase58("1112")!], [0, 0, 0, 1]);
  assert.equal(decodeBase58("0OIl"), null);
  assert.equal(decodeBase58(""), null);
});

Deno.test("a 32-byte base58 value is a node id; an alias is not", () => {
  assert.equal(isNodeId("11111111111111111111111111111111"), true);
  assert.equal(isNodeId("4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi"), true);
  assert.equal(isNodeId("demo"), false);
  assert.equal(isNodeId("my-context"), false);
});
