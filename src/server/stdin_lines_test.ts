import assert from "assert";
import { oversizedAnswer, readLines } from "./stdin_lines.ts";
import { MAX_LINE_BYTES } from "./relay.ts";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("lines are split across chunks, a trailing \\r and blank lines are handled, the last needs no newline", async () => {
  const lines: string[] = [];
  await readLines(streamOf([bytes('{"a":'), bytes('1}\r\n\n{"b":2}\n{"c"'), bytes(":3}")]), {
    line: (text) => lines.push(text),
    oversized: () => assert.fail("nothing is oversized"),
  });
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
});

Deno.test("a line over the limit is not kept: its id, found at its edges, comes back with the error", async () => {
  const big = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"${
    "y".repeat(MAX_LINE_BYTES)
  }"}}`;
  const seen: (string | number | null)[] = [];
  const lines: string[] = [];
  const chunks = [];
  for (let at = 0; at < big.length; at += 1 << 20) {
    chunks.push(bytes(big.slice(at, at + (1 << 20))));
  }
  chunks.push(bytes('\n{"after":true}\n'));
  await readLines(streamOf(chunks), {
    line: (t) => lines.push(t),
    oversized: (id) => seen.push(id),
  });
  assert.deepEqual(seen, [42]);
  assert.deepEqual(lines, ['{"after":true}'], "the next line is read as usual");
  assert.deepEqual(JSON.parse(oversizedAnswer(42)).error.code, -32600);
});
