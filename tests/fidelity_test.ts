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

Deno.test("D1: the node's own 'no owned identity' refusal reads as such, with the next step, and refreshes the catalog", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  const { contextId } = sim.createContext(sim.appId("kv-store"));
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    await conn.client.listTools();
    sim.forceRpcError(
      { type: "FunctionCallError", data: "No owned identity found for this context" },
      { times: 1 },
    );
    const lists = sim.counts("GET /admin-api/applications");
    const result = await conn.client.callTool({
      name: "call",
      arguments: { app: "kv-store", context: contextId, method: "len", args: {} },
    });
    assert.equal(result.isError, true);
    assert.match(firstText(result), /no identity of its own in the context.*join_context/s);
    assert.doesNotMatch(firstText(result), /The app's method failed/);
    assert.ok(sim.counts("GET /admin-api/applications") > lists, "the catalog was read again");
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("D5: a context that is neither an id nor a possible alias is refused without asking the node", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    await conn.client.listTools();
    sim.resetLog();
    const listed = await conn.client.callTool({
      name: "list_contexts",
      arguments: {},
    });
    assert.ok(!listed.isError);
    const deleted = await conn.client.callTool({
      name: "delete_context",
      arguments: { context: "my shop" },
    });
    assert.equal(deleted.isError, true);
    assert.match(firstText(deleted), /neither a context id nor a possible alias/);
    assert.equal(
      sim.counts("POST /admin-api/alias/lookup"),
      0,
      "no lookup the node would answer 400",
    );
    const lookup = await conn.client.callTool({
      name: "lookup_alias",
      arguments: { name: "my shop" },
    });
    assert.equal(lookup.isError, true);
    assert.match(firstText(lookup), /1 to 50 letters, digits/);
    const made = await conn.client.callTool({
      name: "create_alias",
      arguments: {
        alias: "shop.v2_main-1",
        contextId: sim.createContext(sim.appId("kv-store")).contextId,
      },
    });
    assert.ok(!made.isError, firstText(made));
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("B3: install URLs a current node refuses are refused before sending; path installs use install-dev-application", async () => {
  const sim = await startSimNode({ apps: [] });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url, CALIMERO_REGISTRY_URL: sim.url }),
  });
  const call = (args: Record<string, unknown>) =>
    conn.client.callTool({ name: "install_application", arguments: args });
  try {
    for (const url of ["http://localhost:9/kv-store.wasm", "http://192.168.1.5/kv-store.wasm"]) {
      const refused = await call({ url });
      assert.equal(refused.isError, true);
      assert.match(firstText(refused), /will not install from .*non-public address.*pass path/s);
    }
    const viaRegistry = await call({ coords: "com.calimero.kv-store@1.0.0" });
    assert.equal(viaRegistry.isError, true);
    assert.match(firstText(viaRegistry), /the registry's artifact http:\/\/127\.0\.0\.1:/);
    assert.equal(
      sim.counts("POST /admin-api/install-application"),
      0,
      "nothing the node would refuse was sent",
    );

    const fromPath = await call({ path: "/srv/apps/kv-store.wasm" });
    assert.ok(!fromPath.isError, firstText(fromPath));
    assert.equal(JSON.parse(firstText(fromPath)).applicationId, sim.appId("kv-store"));
    assert.equal(sim.counts("POST /admin-api/install-dev-application"), 1);
    const traversal = await call({ path: "/srv/apps/../kv-store.wasm" });
    assert.match(firstText(traversal), /contains "\.\."/);
    const missing = await call({ path: "/srv/apps/nothing.wasm" });
    assert.match(
      firstText(missing),
      /could not install "\/srv\/apps\/nothing\.wasm".*node's machine/s,
    );
    assert.match(
      firstText(await call({ url: "https://apps.example/x.wasm", path: "/a" })),
      /exactly one/,
    );
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("B3: with CALIMERO_MCP_ALLOW_LOCAL_URLS a current node's own 400 is translated", async () => {
  const sim = await startSimNode({ apps: [] });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url, CALIMERO_MCP_ALLOW_LOCAL_URLS: "1" }),
  });
  try {
    const refused = await conn.client.callTool({
      name: "install_application",
      arguments: { url: "http://127.0.0.1:9/kv-store.wasm" },
    });
    assert.equal(refused.isError, true);
    assert.equal(sim.counts("POST /admin-api/install-application"), 1);
    assert.match(
      firstText(refused),
      /will not install from http:\/\/127\.0\.0\.1:9\/kv-store\.wasm: URL host is a loopback/,
    );
  } finally {
    await conn.close();
    await sim.close();
  }
});
