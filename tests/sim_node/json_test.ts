import assert from "assert";
import { parseLossless, stringifyExact } from "./json.ts";

Deno.test("integers above 2^53 survive a parse and write with their exact digits", () => {
  const cases = [
    '{"x":18446744073709551615}',
    '{"x":-9223372036854775808}',
    "[9007199254740993,1,2.5]",
    '{"a":{"b":[12345678901234567890]}}',
  ];
  for (const text of cases) assert.equal(stringifyExact(parseLossless(text)), text);
});

Deno.test("safe integers stay numbers and key order is kept", () => {
  const value = parseLossless('{"b":1,"a":2}') as Record<string, unknown>;
  assert.deepEqual(Object.keys(value), ["b", "a"]);
  assert.equal(typeof value.a, "number");
});
