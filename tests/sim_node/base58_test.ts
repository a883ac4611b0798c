import assert from "assert";
import { base58Decode, base58Encode } from "./base58.ts";
import { base58Id, isBase58Id, isHexId } from "./ids.ts";

Deno.test("base58 round-trips bytes, leading zeros included", () => {
  const cases = [
    new Uint8Array(32),
    new Uint8Array([0, 0, 1, 2, 255]),
    new Uint8Array([255, 254, 253]),
    new Uint8Array([]),
  ];
  for (const bytes of cases) assert.deepEqual(base58Decode(base58Encode(bytes)), bytes);
  assert.equal(base58Encode(new Uint8Array(32)), "11111111111111111111111111111111");
});

Deno.test("base58 rejects characters outside the alphabet", () => {
  assert.equal(base58Decode("0OIl"), null);
});

Deno.test("derived ids have the node's forms and are stable", () => {
  assert.equal(isBase58Id(base58Id("a")), true);
  assert.equal(base58Id("a"), base58Id("a"));
  assert.notEqual(base58Id("a"), base58Id("b"));
  assert.equal(isBase58Id("abc"), false);
  assert.equal(isHexId("ab".repeat(32)), true);
  assert.equal(isHexId("ab".repeat(31)), false);
});
