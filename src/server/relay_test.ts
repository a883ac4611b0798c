import assert from "assert";
import { oversizedRequestId } from "./relay.ts";

const big = "x".repeat(10_000);

Deno.test("a too-large request's id is found at its start or as its last member, and only there", () => {
  const cases: [string, string, string | number | null][] = [
    ['{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"', '"}}', 7],
    ['{ "id" : "req-1", "params": {"x": "', '"}}', "req-1"],
    ['{"jsonrpc":"2.0","method":"tools/call","params":{"id":3,"v":"', '"},"id":42}', 42],
    ['{"jsonrpc":"2.0","method":"m","params":{"v":"', '"},"id":"a\\"b"}', 'a"b'],
    // Nested ids are not the request's: the params object is skipped whole, or its end is not the line's.
    ['{"method":"m","params":{"id":3},"x":"', '"}', null],
    ['{"method":"m","params":{"v":"', '","id":5}}', null],
    ['{"params":{"v":"', '"}}', null],
    ['[{"id":1}', "]", null],
    ['{"id":1e3,"v":"', '"}', null],
    ['{"id":12345678901234567890,"v":"', '"}', null],
  ];
  for (const [head, tail, id] of cases) {
    assert.equal(oversizedRequestId(head + big.slice(0, 100), big.slice(0, 100) + tail), id, head);
  }
});
