// Issue 31, least privilege: with the admin credential, create_client_key mints a key with only what the named
// toolsets need (core's POST /admin/client-key), asked first; its tokens go to an owner-only file, never into the
// result; the key then reads and runs, and is refused what it was not given, whatever else shares the state dir.

import assert from "assert";
import {
  askingClient,
  callJson,
  callTool,
  connect,
  type Connection,
  firstText,
  isolatedEnv,
  tempHome,
} from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";

Deno.test("create_client_key writes a scoped key's tokens to an owner-only file; the key can do what it was given, no more", async () => {
  const sim = await startSimNode({
    apps: ["kv-store"],
    auth: { username: "admin", password: "pw" },
  });
  const env = await isolatedEnv({
    CALIMERO_NODE_URL: sim.url,
    CALIMERO_USERNAME: "admin",
    CALIMERO_PASSWORD: "pw",
  });
  const { client, asked } = await askingClient(
    "2026-07-28",
    env,
    () => ({ action: "accept", content: { confirm: true } }),
  );
  try {
    const { contextId } = sim.createContext(sim.appId("kv-store"));
    const result = await client.callTool({
      name: "create_client_key",
      arguments: { toolsets: ["apps"], context: contextId },
    });
    assert.ok(!result.isError, firstText(result));
    const answer = JSON.parse(firstText(result));
    assert.match(asked[0], /Create a client key for this node with context\[/);
    assert.ok(answer.file.startsWith(env.CALIMERO_MCP_STATE_DIR), answer.file);
    assert.deepEqual(answer.permissions.slice(1), [
      "application:list",
      "context:list",
      "context:execute",
    ]);
    const kept = JSON.parse(await Deno.readTextFile(answer.file));
    assert.equal((await Deno.stat(answer.file)).mode! & 0o777, 0o600, "only the owner reads it");
    for (const token of [kept.access_token, kept.refresh_token]) {
      assert.ok(typeof token === "string" && token.length > 20);
      assert.ok(!JSON.stringify(result).includes(token), "no token in the result");
    }
    const as = (method: string, path: string) =>
      fetch(`${sim.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${kept.access_token}` },
      }).then(async (r) => (await r.body?.cancel(), r.status));
    assert.equal(await as("GET", "/admin-api/applications"), 200, "it may list apps");
    assert.equal(
      await as("DELETE", `/admin-api/contexts/${contextId}`),
      403,
      "it may not delete a context",
    );
  } finally {
    await client.close();
    await sim.close();
  }
});

Deno.test("a configured client key stays the key: agent.json's admin token and an admin instance sharing the state dir never replace it", async () => {
  const sim = await startSimNode({
    apps: ["kv-store"],
    auth: { username: "admin", password: "pw" },
  });
  await using home = await tempHome({ CALIMERO_NODE_URL: sim.url });
  const key = sim.issueTokens(["application:list", "context:list", "context:execute"]);
  const admin = sim.issueTokens();
  const handoff = sim.issueTokens();
  await Deno.mkdir(home.env.CALIMERO_MCP_STATE_DIR, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(
    `${home.env.CALIMERO_MCP_STATE_DIR}/agent.json`,
    JSON.stringify({
      nodeUrl: sim.url,
      accessToken: handoff.access_token,
      refreshToken: handoff.refresh_token,
    }),
    { mode: 0o600 },
  );
  const withToken = (pair: { access_token: string; refresh_token: string }) => ({
    ...home.env,
    CALIMERO_AUTH_TOKEN: pair.access_token,
    CALIMERO_REFRESH_TOKEN: pair.refresh_token,
  });
  const mayListNamespaces = async (conn: Connection) =>
    !(await callTool(conn, "list_namespaces")).isError;
  // Both orders: the key's instance first, then the admin's; and the admin's first after a refresh of its own.
  const keyFirst = await connect({ era: "2026-07-28", env: withToken(key) });
  const adminConn = await connect({ era: "2025-11-25", env: withToken(admin) });
  try {
    assert.equal(await mayListNamespaces(keyFirst), false, "the key may not list namespaces");
    assert.equal(await mayListNamespaces(adminConn), true, "the admin may");
    const status = await callJson(keyFirst, "node_status");
    assert.equal(status.authMode, "token");
    assert.deepEqual(status.credential, {
      source: "CALIMERO_AUTH_TOKEN",
      scope: ["application:list", "context:list", "context:execute"],
    });
    assert.deepEqual((await callJson(adminConn, "node_status")).credential, {
      source: "CALIMERO_AUTH_TOKEN",
      scope: "admin",
    });
    // Every token expires: each instance refreshes its own pair, and neither adopts the other's.
    sim.expireTokens();
    assert.equal(await mayListNamespaces(adminConn), true, "the admin refreshed its own pair");
    assert.equal(await mayListNamespaces(keyFirst), false, "the key refreshed its own pair");
    const keyLater = await connect({ era: "2025-11-25", env: withToken(key) });
    try {
      assert.equal(await mayListNamespaces(keyLater), false, "a key instance started after both");
      assert.ok(
        (await callJson(keyLater, "list_contexts")).contexts,
        "what the key was given works",
      );
      assert.match(keyLater.stderr(), /agent\.json names this node too, but CALIMERO_AUTH_TOKEN/);
    } finally {
      await keyLater.close();
    }
    assert.equal(await mayListNamespaces(adminConn), true, "the admin kept its credential");
  } finally {
    await keyFirst.close();
    await adminConn.close();
    await sim.close();
  }
});

Deno.test("a key's tokens go only to a real, owner-only folder in the state dir, and no key is minted that could not be kept", async () => {
  const sim = await startSimNode({
    apps: ["kv-store"],
    auth: { username: "admin", password: "pw" },
  });
  await using home = await tempHome({
    CALIMERO_NODE_URL: sim.url,
    CALIMERO_USERNAME: "admin",
    CALIMERO_PASSWORD: "pw",
  });
  const { client } = await askingClient(
    "2025-11-25",
    home.env,
    () => ({ action: "accept", content: { confirm: true } }),
  );
  const keys = `${home.env.CALIMERO_MCP_STATE_DIR}/client-keys`;
  const mint = () =>
    client.callTool({ name: "create_client_key", arguments: { toolsets: ["apps"] } });
  const minted = () => sim.counts("POST /admin/client-key");
  try {
    // A folder left open to others is tightened before a secret goes in; two keys never share a name.
    await Deno.mkdir(keys, { mode: 0o777 });
    await Deno.chmod(keys, 0o777);
    const [first, second] = [await mint(), await mint()];
    assert.ok(!first.isError && !second.isError, firstText(first));
    assert.equal((await Deno.stat(keys)).mode! & 0o777, 0o700);
    assert.notEqual(JSON.parse(firstText(first)).file, JSON.parse(firstText(second)).file);
    assert.equal(minted(), 2);

    // client-keys swapped for a link out of the state dir: refused, nothing written there, no key minted.
    const outside = await Deno.makeTempDir({ prefix: "mero-outside-" });
    await Deno.remove(keys, { recursive: true });
    await Deno.symlink(outside, keys);
    const linked = await mint();
    assert.equal(linked.isError, true);
    assert.match(firstText(linked), /client-keys is a link/);
    assert.deepEqual([...Deno.readDirSync(outside)], []);
    assert.equal(minted(), 2, "no key minted");

    // Where no file can be made (here a file in the folder's place): no key minted either.
    await Deno.remove(keys);
    await Deno.writeTextFile(keys, "");
    const blocked = await mint();
    assert.equal(blocked.isError, true);
    assert.match(firstText(blocked), /client-keys is not a folder/);
    assert.equal(minted(), 2, "no key minted whose tokens could not be kept");
    await Deno.remove(outside, { recursive: true });
  } finally {
    await client.close();
    await sim.close();
  }
});
