import assert from "assert";
import { formatBytes, readBody } from "./body.ts";

/** A streamed body of `chunks` chunks of `size` bytes, without content-length; counts pulls and cancels. */
function streamed(chunks: number, size: number) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled === chunks) return controller.close();
      seen.pulled++;
      controller.enqueue(new Uint8Array(size).fill(seen.pulled));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { response: new Response(stream), seen };
}

Deno.test("a body within the limit is read whole, chunks in order", async () => {
  const { response } = streamed(3, 4);
  const bytes = await readBody(response, 12);
  assert.deepEqual([...bytes!], [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
});

Deno.test("a response without a body reads as no bytes", async () => {
  assert.equal((await readBody(new Response(null, { status: 204 }), 10))!.length, 0);
});

Deno.test("a declared content-length over the limit is refused before any byte is read", async () => {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      seen.pulled++;
      controller.enqueue(new Uint8Array(1024));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  const response = new Response(stream, { headers: { "content-length": String(1024 * 1024) } });
  assert.equal(await readBody(response, 1000), null);
  await Promise.resolve();
  assert.equal(seen.cancelled, true, "the body is cancelled");
  assert.ok(seen.pulled <= 1, `pulled ${seen.pulled} chunks`);
});

Deno.test("a streamed body without content-length is cut off at the limit and cancelled", async () => {
  const { response, seen } = streamed(10_000, 1024);
  assert.equal(await readBody(response, 10 * 1024), null);
  await Promise.resolve();
  assert.equal(seen.cancelled, true, "the body is cancelled");
  assert.ok(seen.pulled <= 13, `read on after the limit: pulled ${seen.pulled} chunks`);
});

Deno.test("exactly the limit is still read", async () => {
  const { response } = streamed(2, 5);
  assert.equal((await readBody(response, 10))!.length, 10);
});

Deno.test("formatBytes names whole MiB and falls back to bytes", () => {
  assert.equal(formatBytes(16 * 1024 * 1024), "16 MiB");
  assert.equal(formatBytes(1000), "1000 bytes");
});
