import assert from "assert";
import fc from "fast-check";
import { base58Encode } from "../../tests/sim_node/base58.ts";
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

Deno.test("isNodeId accepts exactly the base58 encodings of 32 bytes", () => {
  const cases: [string, boolean][] = [
    ["11111111111111111111111111111111", true],
    [base58Encode(new Uint8Array(32).fill(255)), true],
    [base58Encode(new Uint8Array(31).fill(7)), false],
    [base58Encode(new Uint8Array(33).fill(7)), false],
    ["shop", false],
    ["my-context-alias-that-is-long-enough-to-pass", false],
    ["0".repeat(44), false],
    ["ab".repeat(32), false],
  ];
  for (const [value, expected] of cases) assert.equal(isNodeId(value), expected, value);
  fc.assert(fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
    assert.ok(isNodeId(base58Encode(bytes)));
  }));
});
