import assert from "assert";
import { createResultStore, RESULT_READS, RESULT_TTL_MS } from "./results.ts";

Deno.test("a kept result is read a few times, then gone", () => {
  const store = createResultStore();
  const uri = store.keep('{"a":1}', "application/json")!;
  assert.match(uri, /^calimero:\/\/results\/[0-9a-f-]{36}$/);
  for (let i = 0; i < RESULT_READS; i++) assert.equal(store.read(uri)?.text, '{"a":1}');
  assert.equal(store.read(uri), null);
  assert.equal(store.read("calimero://results/not-an-id"), null);
});

Deno.test("a kept result expires, and the oldest go first when the store is full", () => {
  let now = 0;
  const store = createResultStore(() => now);
  const first = store.keep("x", "text/plain")!;
  now += RESULT_TTL_MS;
  assert.equal(store.has(first), false);
  const uris = Array.from({ length: 40 }, (_, i) => store.keep(String(i), "text/plain")!);
  assert.equal(store.has(uris[0]), false, "at most 32 kept");
  assert.equal(store.has(uris[39]), true);
  // One bigger than the whole store is not kept at all.
  assert.equal(store.keep("z".repeat(33 * 1024 * 1024), "text/plain"), null);
});
