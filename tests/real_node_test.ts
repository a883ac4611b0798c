// Opt-in end to end against a real merod: set MERO_E2E_NODE_URL to a running node's URL.
// .ci/real-nodes runs it (GitHub CI: .github/workflows/real-nodes.yml, against merobox-booted nodes); elsewhere it
// is skipped with a reason.

import assert from "assert";
import { connect, ERAS, firstText, isolatedEnv } from "./harness.ts";

const NODE_URL = Deno.env.get("MERO_E2E_NODE_URL");
if (!NODE_URL) {
  // deno-lint-ignore no-console -- the printed reason for a skip
  console.error("real_node_test: skipped, MERO_E2E_NODE_URL is not set (no real merod here)");
}

for (const era of ERAS) {
  Deno.test({
    name: `[${era}] against a real merod: the node answers, its apps list, their tools are listed`,
    ignore: !NODE_URL,
    async fn() {
      const conn = await connect({ era, env: await isolatedEnv({ CALIMERO_NODE_URL: NODE_URL! }) });
      try {
        const status = JSON.parse(
          firstText(await conn.client.callTool({ name: "node_status", arguments: {} })),
        );
        assert.equal(status.health, "alive");
        assert.equal(status.discoverySource, "env");
        const apps = await conn.client.callTool({ name: "list_applications", arguments: {} });
        assert.ok(!apps.isError, firstText(apps));
        const { tools } = await conn.client.listTools();
        assert.ok(tools.some((t) => t.name === "select_app"));
      } finally {
        await conn.close();
      }
    },
  });
}
