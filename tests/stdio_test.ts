// The process on stdio, end to end: both eras, timing under a hanging node, stdout purity, exits.

import assert from "assert";
import { exchange } from "./raw_client.ts";
import { connect, ERAS, isolatedEnv, LEGACY_OPENING, ROOT } from "./harness.ts";

for (const era of ERAS) {
  Deno.test(`[${era}] initialize names mero-mcp with the deno.json version and lists tools`, async () => {
    const conn = await connect({ era });
    try {
      const version = conn.client.getServerVersion();
      assert.equal(version?.name, "mero-mcp");
      const denoJson = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
      assert.equal(version?.version, denoJson.version);
      const instructions = conn.client.getInstructions() ?? "";
      assert.ok(instructions.includes("select_app"), "instructions say how to start");
      assert.ok(instructions.length <= 1000);
      const caps = conn.client.getServerCapabilities();
      assert.equal(caps?.tools?.listChanged, true);
      assert.equal(caps?.resources?.listChanged, true);
      const { tools } = await conn.client.listTools();
      assert.ok(tools.some((t) => t.name === "node_status"));
    } finally {
      await conn.close();
    }
  });
}

Deno.test("[2026-07-28] list results carry cache hints; [2025-11-25] they do not", async () => {
  for (const era of ERAS) {
    const env = await isolatedEnv();
    const lines = await exchange(env, era === "2026-07-28" ? modernList : legacyList);
    const list = lines.find((l) => l.id === 2) as { result: Record<string, unknown> };
    assert.ok(list, `a tools/list answer in ${era}`);
    if (era === "2026-07-28") {
      assert.equal(list.result.ttlMs, 30000);
      assert.equal(list.result.cacheScope, "private");
    } else {
      assert.equal(list.result.ttlMs, undefined);
    }
  }
});

Deno.test("initialize is answered fast even when the node accepts connections and never answers", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  (async () => {
    for await (const c of listener) held.push(c);
  })();
  try {
    const port = (listener.addr as Deno.NetAddr).port;
    // What the bound tells apart is "waited for the node" from "did not": with the node's timeout at 60 s, a
    // server that waited would take a minute, so the bound can leave a cold, loaded machine all the room it needs.
    const env = await isolatedEnv({
      CALIMERO_NODE_URL: `http://127.0.0.1:${port}`,
      CALIMERO_NODE_TIMEOUT_MS: "60000",
    });
    for (const era of ERAS) {
      const started = performance.now();
      const conn = await connect({ era, env });
      const elapsed = performance.now() - started;
      await conn.close();
      // Answering well before the node's 60 s shows initialize did not wait for it (start-up budget 500 ms);
      // B1 measures the time itself.
      assert.ok(elapsed < 30_000, `connected in ${elapsed.toFixed(0)} ms (${era})`);
    }
  } finally {
    listener.close();
    held.forEach((c) => c.close());
  }
});

const legacyList = [
  ...LEGACY_OPENING,
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
];

const modernMeta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const modernList = [
  { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: modernMeta } },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: modernMeta } },
];
