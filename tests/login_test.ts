// `mero-mcp login [node]`, end to end: the real command against a simulated node with embedded auth, a stand-in
// browser ($BROWSER) that signs in and follows the node's redirect to the loopback callback, then a server that uses
// the stored tokens for that node — scoped to what the toolsets need, never admin unasked.

import assert from "assert";
import { join } from "path";
import { callJson, connect, isolatedEnv, ROOT, serverCommand } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";

/** A $BROWSER: one executable that runs the stand-in browser on the address it is given. */
async function fakeBrowser(dir: string): Promise<string> {
  const path = join(dir, "browser.sh");
  await Deno.writeTextFile(
    path,
    `#!/bin/sh\nexec "${Deno.execPath()}" run --quiet --allow-net "${
      join(ROOT, "tests/fixtures/fake_browser.ts")
    }" "$1"\n`,
  );
  await Deno.chmod(path, 0o755);
  return path;
}

async function doctor(env: Record<string, string>): Promise<string> {
  const { command, args } = serverCommand();
  const out = await new Deno.Command(command, {
    args: [...args, "doctor"],
    env,
    clearEnv: true,
    stdin: "null",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

async function login(args: string[], env: Record<string, string>) {
  const { command, args: base } = serverCommand();
  const out = await new Deno.Command(command, {
    args: [...base, "login", ...args],
    env,
    clearEnv: true,
    stdin: "null",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test({
  name:
    "login signs in to a named node in the browser; the server then uses its tokens there, scoped to the toolsets",
  ignore: Deno.build.os === "windows",
  async fn() {
    const own = await startSimNode({ apps: ["kv-store"] });
    const far = await startSimNode({
      apps: ["kv-store"],
      seed: "far",
      auth: { username: "ada", password: "secret" },
    });
    const env = await isolatedEnv({
      CALIMERO_NODE_URL: own.url,
      CALIMERO_NODES: `far=${far.url}`,
      CALIMERO_MCP_TOOLSETS: "core,apps",
    });
    env.BROWSER = await fakeBrowser(env.HOME);
    try {
      // Before: the node wants a credential this server does not have.
      const before = await connect({ era: "2025-11-25", env });
      const refused = await before.client.callTool({
        name: "list_contexts",
        arguments: { node: "far" },
      });
      await before.close();
      assert.equal(refused.isError, true);

      // doctor says, per node, whether it answers and what the credential there may do.
      const doctorBefore = await doctor(env);
      assert.match(
        doctorBefore,
        /Nodes\n\s+warn far\s+http:\/\/127\.0\.0\.1:\d+ \(configured\): .*Run mero-mcp login far/,
      );

      const done = await login(["far"], env);
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stderr, /Signed in to http:\/\/127\.0\.0\.1:\d+ \(node "far"\)/);
      assert.doesNotMatch(done.stderr, /eyJ/, "no token is printed");
      // The pair is kept owner-only in the state directory.
      const files = [...Deno.readDirSync(env.CALIMERO_MCP_STATE_DIR)].filter((e) =>
        e.name.startsWith("tokens-") && e.name.endsWith(".json")
      );
      assert.equal(files.length, 1);
      const mode = (await Deno.stat(join(env.CALIMERO_MCP_STATE_DIR, files[0].name))).mode! & 0o777;
      assert.equal(mode, 0o600);

      assert.match(
        await doctor(env),
        /ok\s+far\s+http:\/\/127\.0\.0\.1:\d+ \(configured\): answers; mero-mcp login, application:list, context, namespace:list/,
      );

      const after = await connect({ era: "2026-07-28", env });
      try {
        const listed = await callJson(after, "list_contexts", { node: "far" });
        assert.ok(Array.isArray(listed.contexts));
        const status = await callJson(after, "node_status", { node: "far" });
        assert.equal(status.credential?.source, "mero-mcp login");
        // Asked for what core and apps need, not admin.
        assert.notEqual(status.credential?.scope, "admin", JSON.stringify(status.credential));
        assert.ok((status.credential?.scope as string[]).includes("context:execute"));
        // The server's own node is untouched: it needs no auth and gets none.
        const ownStatus = await callJson(after, "node_status", {});
        assert.equal(ownStatus.credential?.source ?? null, null);
      } finally {
        await after.close();
      }
    } finally {
      await own.close();
      await far.close();
    }
  },
});

Deno.test("login refuses a remote node over plain http unless allowed, and says when there is nothing to sign in to", async () => {
  const open = await startSimNode();
  const env = await isolatedEnv({ CALIMERO_NODE_URL: open.url });
  try {
    const none = await login([], env);
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stderr, /asks for no authentication: there is nothing to log in to/);
    const unknown = await login(["nowhere"], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /No node is named "nowhere"/);
    const remote = await login([], { ...env, CALIMERO_NODE_URL: "http://10.20.30.40:2528" });
    assert.equal(remote.code, 2);
    assert.match(remote.stderr, /over plain http: its tokens would cross the network unencrypted/);
  } finally {
    await open.close();
  }
});
