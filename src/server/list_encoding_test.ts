import assert from "node:assert/strict";
import { type JSONRPCMessage, serializeMessage } from "@modelcontextprotocol/server";
import { encodeMessage, registerListed } from "./list_encoding.ts";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function entry(name: string, output?: Record<string, unknown>): Record<string, unknown> {
  const e: Record<string, unknown> = {
    name,
    description: `Does ${name} — “quoted” ünïcode`,
    inputSchema: { type: "object", properties: { k: { type: "string" } } },
  };
  if (output) e.outputSchema = output;
  registerListed(e);
  return e;
}

/** What the SDK does to a 2025-era list: a fresh copy of each entry whose output schema is not an object. */
const wrap = (e: Record<string, unknown>) => ({
  ...e,
  outputSchema: { type: "object", properties: { result: e.outputSchema }, required: ["result"] },
});

Deno.test("a tools/list answer encodes exactly as the SDK serializes it, from cache or not, in both eras", () => {
  const a = entry("a", { type: "object", properties: {} });
  const b = entry("b", { type: "string" });
  const listed = [a, b];
  for (let round = 0; round < 3; round++) {
    const modern = { jsonrpc: "2.0", id: round, result: { tools: listed, _meta: { x: 1 } } };
    assert.equal(
      decode(encodeMessage(modern as JSONRPCMessage)),
      serializeMessage(modern as JSONRPCMessage),
    );
    const legacy = { jsonrpc: "2.0", id: `r${round}`, result: { tools: [a, wrap(b)] } };
    assert.equal(
      decode(encodeMessage(legacy as JSONRPCMessage)),
      serializeMessage(legacy as JSONRPCMessage),
    );
  }
});

Deno.test("a changed tool is a new entry: its bytes are never the old ones; other messages pass through", () => {
  const before = entry("c", { type: "string" });
  const first = { jsonrpc: "2.0", id: 1, result: { tools: [wrap(before)] } } as JSONRPCMessage;
  encodeMessage(first);
  const after = entry("c", { type: "number" });
  const second = { jsonrpc: "2.0", id: 2, result: { tools: [wrap(after)] } } as JSONRPCMessage;
  assert.equal(decode(encodeMessage(second)), serializeMessage(second));
  assert.match(decode(encodeMessage(second)), /"number"/);
  const notList = { jsonrpc: "2.0", id: 3, result: { content: [] } } as JSONRPCMessage;
  assert.equal(decode(encodeMessage(notList)), serializeMessage(notList));
  const empty = { jsonrpc: "2.0", id: 4, result: { tools: [] } } as JSONRPCMessage;
  assert.equal(decode(encodeMessage(empty)), serializeMessage(empty));
});
