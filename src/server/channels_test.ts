import assert from "node:assert/strict";
import { byNode } from "./channels.ts";

Deno.test("a channel choice splits by node: bare and default: names are the server's own, node: names that node's", () => {
  const split = byNode({
    contexts: ["mine", "default:also", "two:theirs", "two:more"],
    selected: true,
  });
  assert.deepEqual([...split], [
    [null, { contexts: ["mine", "also"], selected: true }],
    ["two", { contexts: ["theirs", "more"], selected: false }],
  ]);
});
