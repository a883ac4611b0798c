import assert from "assert";
import { errorResult, resultText, textResult, withNote } from "./result.ts";
import { NodeRpcError } from "../mero/mod.ts";

const rpc = (type: string, data?: unknown) => new NodeRpcError(type, data, "m");
/** An app's error as core reports it: the UTF-8 bytes of its JSON, in Rust's debug list form. */
const guest = (json: string) =>
  `the method call returned an error: [${[...new TextEncoder().encode(json)].join(", ")}]`;

Deno.test("errorResult and textResult build MCP tool results; resultText reads their text blocks", () => {
  assert.deepEqual(errorResult(rpc("FunctionCallError", guest('"key not found"'))), {
    content: [{ type: "text", text: "Error: key not found" }],
    isError: true,
  });
  assert.deepEqual(textResult("done"), { content: [{ type: "text", text: "done" }] });
  assert.deepEqual(textResult({ n: 9223372036854775807n, s: "x" }, { ok: true }), {
    content: [{ type: "text", text: '{"n":9223372036854775807,"s":"x"}' }],
    structuredContent: { ok: true },
  });
  assert.ok(!("structuredContent" in textResult(1)));
  const withGuide = {
    content: [
      { type: "text" as const, text: "a" },
      {
        type: "resource" as const,
        resource: { uri: "u", mimeType: "text/markdown", text: "guide" },
      },
      { type: "text" as const, text: "b" },
    ],
  };
  assert.equal(resultText(withGuide), "a\nb");
  assert.deepEqual(withNote(textResult("x"), "more").content.map((c) => c.type), ["text", "text"]);
  assert.equal(withNote(textResult("x"), null).content.length, 1);
});
