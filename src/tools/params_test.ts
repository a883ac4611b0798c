import assert from "assert";
import { base58Encode } from "../../tests/sim_node/base58.ts";
import {
  callOptions,
  collectPages,
  contextIdOf,
  LIST_LIMIT,
  PAGE_SIZE,
  whileWaiting,
} from "./params.ts";
import type { ToolContext } from "./tool.ts";

const ctx = (progress: ToolContext["progress"] = () => {}): ToolContext => ({
  signal: new AbortController().signal,
  progress,
});

Deno.test("contextIdOf uses an id as is and looks anything else up as an alias", async () => {
  const id = base58Encode(new Uint8Array(32).fill(9));
  const looked: string[] = [];
  const lookup = (name: string) => {
    looked.push(name);
    return Promise.resolve(name === "shop" ? id : null);
  };
  assert.equal(await contextIdOf(id, lookup), id);
  assert.deepEqual(looked, []);
  assert.equal(await contextIdOf("shop", lookup), id);
  await assert.rejects(contextIdOf("gone", lookup), /"gone" is neither a context id nor an alias/);
});

Deno.test("callOptions carries the signal, the traceparent only when present, and a timeout", () => {
  const plain = ctx();
  assert.deepEqual(Object.keys(callOptions(plain)), ["signal"]);
  const traced = {
    ...plain,
    traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  };
  const options = callOptions(traced, 65_000);
  assert.equal(options.signal, plain.signal);
  assert.equal(options.traceparent, traced.traceparent);
  assert.equal(options.timeoutMs, 65_000);
});

/** A node holding `total` items that answers `offset`/`limit` pages (or ignores them). */
function pagedNode(total: number, ignoreOffset = false) {
  const calls: { offset: number; limit: number }[] = [];
  const fetchPage = (page: { offset: number; limit: number }) => {
    calls.push(page);
    const start = ignoreOffset ? 0 : page.offset;
    const end = Math.min(total, start + page.limit);
    return Promise.resolve(Array.from({ length: Math.max(0, end - start) }, (_, i) => start + i));
  };
  return { calls, fetchPage };
}

Deno.test("collectPages fetches pages of 100 until a short page", async () => {
  const node = pagedNode(250);
  const { items, truncated } = await collectPages(node.fetchPage, String);
  assert.equal(items.length, 250);
  assert.equal(truncated, false);
  assert.deepEqual(node.calls.map((c) => c.offset), [0, 100, 200]);
  assert.ok(node.calls.every((c) => c.limit === PAGE_SIZE));
});

Deno.test("collectPages stops at 1,000 items and says so only when there are more", async () => {
  for (
    const [total, truncated] of [[5000, true], [1001, true], [1000, false], [999, false]] as const
  ) {
    const result = await collectPages(pagedNode(total).fetchPage, String);
    assert.equal(result.items.length, Math.min(total, LIST_LIMIT), `${total}`);
    assert.equal(result.truncated, truncated, `${total}`);
  }
});

Deno.test("collectPages stops when a node ignores offset and repeats its first page", async () => {
  const node = pagedNode(500, true);
  const { items, truncated } = await collectPages(node.fetchPage, String);
  assert.equal(items.length, 100);
  assert.equal(truncated, false);
  assert.equal(node.calls.length, 2);
});

Deno.test("whileWaiting reports progress until the work settles, then returns its value", async () => {
  const seen: [number, string | undefined][] = [];
  let finish!: (value: string) => void;
  const work = new Promise<string>((resolve) => finish = resolve);
  const result = whileWaiting(
    ctx((progress, message) => {
      seen.push([progress, message]);
      if (seen.length === 2) finish("done");
    }),
    "Installing",
    work,
    1,
  );
  assert.equal(await result, "done");
  assert.equal(seen.length, 2);
  assert.match(seen[0][1] ?? "", /^Installing: still waiting for the node/);
  assert.ok(seen[1][0] >= seen[0][0], "progress never goes back");
});

Deno.test("whileWaiting passes a failure through", async () => {
  await assert.rejects(
    whileWaiting(ctx(), "Joining", Promise.reject(new Error("refused")), 1),
    /refused/,
  );
});
