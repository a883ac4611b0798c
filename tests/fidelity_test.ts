// Behaviours of the real node (calimero-network/core) that the simulated node now shares, end to end: each test
// failed against the client before the fix it names (research/node-fidelity.md).

import assert from "assert";
import { connect, firstText, isolatedEnv } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";

Deno.test("B4: behind a path prefix with embedded auth, login goes to /auth at the node's root", async () => {
  const sim = await startSimNode({
    apps: ["kv-store"],
    pathPrefix: "/node1",
    auth: { username: "ada", password: "lovelace" },
  });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({
      CALIMERO_NODE_URL: `${sim.url}`,
      CALIMERO_USERNAME: "ada",
      CALIMERO_PASSWORD: "lovelace",
    }),
  });
  try {
    assert.ok(sim.url.endsWith("/node1"));
    const result = await conn.client.callTool({ name: "list_applications", arguments: {} });
    assert.ok(!result.isError, firstText(result));
    assert.match(firstText(result), /com\.calimero\.kv-store/);
    assert.equal(sim.stats.logins, 1);
    const outside = sim.requests.filter((r) => r.outsidePrefix).map((r) => r.path);
    assert.deepEqual(outside, [], "nothing was sent to a path the node does not serve");
  } finally {
    await conn.close();
    await sim.close();
  }
});
