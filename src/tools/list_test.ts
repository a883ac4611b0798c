import assert from "assert";
import { collectPages, LIST_LIMIT, PAGE_SIZE } from "./list.ts";

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
