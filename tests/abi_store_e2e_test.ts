// Parsed ABIs survive a restart (performance issue, B1): the second start of a server with the same state dir lists
// the same tools from disk, without waiting for the node; an ABI its route answered is only the node's claim, so it
// is asked again once, in the background (hostile-input round 3, #11); a tampered file is dropped and read again.

import assert from "assert";
import { connect, isolatedEnv } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";

Deno.test("a restart with the same state dir lists from disk and asks each claimed ABI again once; a tampered file is re-read", async () => {
  const sim = await startSimNode({ apps: ["kv-store", "mero-issue-tracker"] });
  const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
  const abiRequests = () => sim.requests.filter((r) => r.path.endsWith("/abi")).length;
  const toolNames = async () => {
    const conn = await connect({ era: "2026-07-28", env });
    try {
      return (await conn.client.listTools()).tools.map((t) => t.name).sort();
    } finally {
      await conn.close();
    }
  };
  try {
    const first = await toolNames();
    assert.ok(first.includes("kv_store_get"));
    const firstReads = abiRequests();
    assert.ok(firstReads >= 2, `the first start reads each ABI (${firstReads})`);
    const files = [...Deno.readDirSync(env.CALIMERO_MCP_STATE_DIR)].map((e) => e.name)
      .filter((n) => /^abi-[0-9a-f]+\.json$/.test(n));
    const units = new Set(sim.requests.filter((r) => r.path.endsWith("/abi")).map((r) => r.path));
    assert.equal(files.length, units.size, "one file per unit, named by a hash");

    sim.resetLog();
    assert.deepEqual(await toolNames(), first, "the same tools after a restart");
    assert.ok(abiRequests() <= firstReads, "each claimed ABI asked again at most once a start");

    for (const name of files) {
      await Deno.writeTextFile(
        `${env.CALIMERO_MCP_STATE_DIR}/${name}`,
        '{"schema_version":"nope"}',
      );
    }
    sim.resetLog();
    assert.deepEqual(await toolNames(), first, "tampered files are not believed");
    assert.ok(abiRequests() >= files.length, "each tampered ABI is read from the node again");
    for (const name of files) {
      const text = await Deno.readTextFile(`${env.CALIMERO_MCP_STATE_DIR}/${name}`);
      assert.match(text, /wasm-abi\/1/, "and kept again, valid");
    }
  } finally {
    await sim.close();
  }
});
