// Issue 31, least privilege: with the admin credential, create_client_key mints a key with only what the named
// toolsets need (core's POST /admin/client-key), asked first; its tokens go to an owner-only file, never into the
// result; the key then reads and runs, and is refused what it was not given.

import assert from "assert";
import { askingClient, firstText, isolatedEnv } from "./harness.ts";
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
