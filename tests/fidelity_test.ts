// Behaviours of the real node (calimero-network/core) that the simulated node now shares, end to end: each test
// failed against the client before the fix it names (research/node-fidelity.md).

import assert from "assert";
import { connect, firstText, isolatedEnv } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";
import { SAMPLE_APPS } from "./sim_node/apps/mod.ts";
import { APP_CLIENT_PERMISSIONS } from "./sim_node/permissions.ts";

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
    const installed = JSON.parse(firstText(fromPath));
    assert.equal(sim.state.apps.get(installed.applicationId)?.package, "wasm.kv-store");
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

Deno.test("B2, D3: a scoped client key (no admin) still gets every app's tools, from wasm and .mpk bytecode blobs", async () => {
  const sim = await startSimNode({ apps: ["bignum"], auth: { username: "ada", password: "pw" } });
  sim.install({ ...SAMPLE_APPS["kv-store"].build({ version: "1.0.0" }), bundle: true });
  const kv = sim.appId("kv-store");
  sim.createContext(kv, { alias: "shop" });
  const scoped = sim.issueTokens(APP_CLIENT_PERMISSIONS);
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({
      CALIMERO_NODE_URL: sim.url,
      CALIMERO_AUTH_TOKEN: scoped.access_token,
      CALIMERO_REFRESH_TOKEN: scoped.refresh_token,
    }),
  });
  try {
    const names = (await conn.client.listTools()).tools.map((t) => t.name);
    for (const name of ["kv_store_get", "kv_store_set", "bignum_echo_u64"]) {
      assert.ok(names.includes(name), `${name} is listed`);
    }
    assert.ok(
      sim.counts(`GET /admin-api/applications/${kv}/abi`) >= 1,
      "the ABI route was tried first",
    );
    const bundleBlob = sim.state.apps.get(kv)!.blob.bytecode;
    assert.equal(sim.counts(`GET /admin-api/blobs/${bundleBlob}`), 1, "then the .mpk, once");
    const handle = JSON.parse(
      firstText(
        await conn.client.callTool({
          name: "select_app",
          arguments: { app: "kv-store", context: "shop" },
        }),
      ),
    ).app_handle;
    const set = await conn.client.callTool({
      name: "kv_store_set",
      arguments: { app_handle: handle, key: "k", value: "v" },
    });
    assert.ok(!set.isError, firstText(set));
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("D7.1: in credentials mode a bare 401 for a stored token (the node forgot its keys) logs in again once", async () => {
  const sim = await startSimNode({ apps: ["kv-store"], auth: { username: "ada", password: "pw" } });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({
      CALIMERO_NODE_URL: sim.url,
      CALIMERO_USERNAME: "ada",
      CALIMERO_PASSWORD: "pw",
    }),
  });
  try {
    const first = await conn.client.callTool({ name: "list_applications", arguments: {} });
    assert.ok(!first.isError, firstText(first));
    assert.equal(sim.stats.logins, 1);
    sim.forgetTokens();
    const after = await conn.client.callTool({ name: "list_applications", arguments: {} });
    assert.ok(!after.isError, firstText(after));
    assert.equal(sim.stats.logins, 2, "one fresh login, then the call went through");
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("D7.2: a refresh that core answers 500 'Key not found' (a revoked key) drops the tokens and says what to do", async () => {
  const sim = await startSimNode({ apps: ["kv-store"], auth: { username: "ada", password: "pw" } });
  const pair = sim.issueTokens();
  const env = await isolatedEnv({
    CALIMERO_NODE_URL: sim.url,
    CALIMERO_AUTH_TOKEN: pair.access_token,
    CALIMERO_REFRESH_TOKEN: pair.refresh_token,
  });
  const conn = await connect({ era: "2025-11-25", env });
  try {
    await conn.client.listTools();
    sim.revokeTokens();
    sim.expireTokens();
    const failed = await conn.client.callTool({ name: "list_applications", arguments: {} });
    assert.equal(failed.isError, true);
    assert.match(
      conn.stderr(),
      /rejected the stored token \(key revoked\); it was dropped\. Set a new CALIMERO_AUTH_TOKEN/,
    );
    const files = [...Deno.readDirSync(env.CALIMERO_MCP_STATE_DIR)].map((e) => e.name);
    for (const name of files) {
      if (name.startsWith("tokens-")) {
        assert.doesNotMatch(
          Deno.readTextFileSync(`${env.CALIMERO_MCP_STATE_DIR}/${name}`),
          /access_token/,
        );
      }
    }
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("D4, D6: members are added by account (an unresolvable key is explained), and listed past the node's page of 100", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  const call = (name: string, args: Record<string, unknown>) =>
    conn.client.callTool({ name, arguments: args });
  try {
    const namespace = sim.createNamespace(sim.appId("kv-store"), "team");
    const accounts = Array.from({ length: 150 }, (_, i) => i.toString(16).padStart(64, "0"));
    const added = await call("add_group_members", {
      group: namespace,
      members: accounts.map((identity) => ({ identity, role: "Member" })),
    });
    assert.ok(!added.isError, firstText(added));
    const listed = JSON.parse(firstText(await call("list_group_members", { group: namespace })));
    assert.equal(listed.members.length, 151, "the node's own account and all 150, over two pages");
    assert.ok(sim.counts("GET /admin-api/groups/") >= 2);

    const unknownKey = "9SnQmk2Zb8QEfxLhTW5ZBUsXGdjJ4nXF1pDcqSgtYyVA";
    const refused = await call("add_group_members", {
      group: namespace,
      members: [{ identity: unknownKey, role: "ReadOnly" }],
    });
    assert.equal(refused.isError, true);
    assert.match(
      firstText(refused),
      /could not add 9SnQ.*Pass the member's account instead \(64 hex/s,
    );
    const tee = await call("add_group_members", {
      group: namespace,
      members: [{ identity: accounts[0], role: "ReadOnlyTee" }],
    });
    assert.equal(tee.isError, true, "ReadOnlyTee is not a role the tool offers");
  } finally {
    await conn.close();
    await sim.close();
  }
});
