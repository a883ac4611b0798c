import assert from "assert";
import { fitResult } from "./fit.ts";
import { createResultStore } from "./results.ts";
import type { ToolResult } from "../answer/result.ts";

const value = JSON.stringify({ rows: Array.from({ length: 20_000 }, (_, i) => `row ${i}`) });
const big: ToolResult = {
  content: [{ type: "text", text: value }, { type: "text", text: "[mero-mcp] data from the app" }],
  structuredContent: JSON.parse(value),
};

Deno.test("a result over the budget becomes a head, a note and a link to the whole value", () => {
  const store = createResultStore();
  const fitted = fitResult(big, 20_000, store, false);
  const texts = fitted.content.flatMap((b) => b.type === "text" ? [b.text] : []);
  assert.ok(texts.join("").length <= 20_000, `${texts.join("").length}`);
  assert.ok(value.startsWith(texts[0]));
  assert.match(texts[1], /this value is 2\d\d,\d\d\d characters, over the 20,000/);
  assert.equal(texts[2], "[mero-mcp] data from the app", "the origin line is kept");
  assert.equal(fitted.structuredContent, undefined, "the value is not sent twice");
  const link = fitted.content.find((b) => b.type === "resource_link");
  assert.ok(link && link.type === "resource_link");
  assert.equal(link.size, value.length);
  assert.equal(store.read(link.uri)?.text, value);
});

Deno.test("a result within the budget, and an error, pass as they are or cut", () => {
  const store = createResultStore();
  assert.equal(fitResult(big, 1_000_000, store, false), big);
  const error = fitResult(
    { content: [{ type: "text", text: "e".repeat(20_000) }], isError: true },
    1_000_000,
    store,
    false,
  );
  assert.ok((error.content[0] as { text: string }).text.length < 10_000);
});

Deno.test("an embedded guide over the budget becomes a link to its resource", () => {
  const guided: ToolResult = {
    content: [
      { type: "text", text: '{"app_handle":"h"}' },
      {
        type: "resource",
        resource: {
          uri: "calimero://apps/x/1/guide",
          mimeType: "text/markdown",
          text: "g".repeat(50_000),
        },
      },
    ],
    structuredContent: { app_handle: "h" },
  };
  const fitted = fitResult(guided, 20_000, createResultStore(), true);
  assert.deepEqual(fitted.structuredContent, { app_handle: "h" }, "required by its output schema");
  assert.equal(fitted.content[0].type, "text");
  const link = fitted.content[1];
  assert.ok(link.type === "resource_link" && link.uri === "calimero://apps/x/1/guide");
});
