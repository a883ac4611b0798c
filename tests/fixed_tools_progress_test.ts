// Long fixed-tool calls report MCP progress while the node works, so clients keep waiting.
// The one slow test of the fixed tools: the node holds the install for just over one 5 s progress interval.

import assert from "assert";
import { connect, ERAS, firstText, isolatedEnv } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";

Deno.test("install_application sends progress while the node is still installing, in both eras", async () => {
  const sim = await startSimNode({ apps: [] });
  const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
  const conns = await Promise.all(ERAS.map((era) => connect({ era, env })));
  try {
    sim.setFault({ kind: "slow", delayMs: 5_600 }, {
      pathPrefix: "/admin-api/install-application",
    });
    await Promise.all(conns.map(async (conn, i) => {
      const updates: { progress: number; message?: string }[] = [];
      const result = await conn.client.callTool(
        {
          name: "install_application",
          arguments: { url: "https://bundles.example/kv-store.wasm" },
        },
        { onprogress: (p) => updates.push(p), timeout: 30_000 },
      );
      assert.ok(!result.isError, `${ERAS[i]}: ${firstText(result)}`);
      assert.ok(sim.state.apps.has(JSON.parse(firstText(result)).applicationId));
      assert.equal(updates.length, 1, `${ERAS[i]}: one progress update in ~5.6 s`);
      assert.match(updates[0].message ?? "", /Installing: still waiting for the node/);
    }));
  } finally {
    sim.setFault(null);
    await Promise.all(conns.map((c) => c.close()));
    await sim.close();
    await Deno.remove(env.HOME, { recursive: true }).catch(() => {});
  }
});
