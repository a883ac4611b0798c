// A real third-party client: the MCP Inspector's CLI drives the server over stdio —
// tools/list and tools/call — against the simulated node. It runs on Node.js, installed once per machine into the
// user's cache directory (MERO_MCP_TEST_CACHE, else $XDG_CACHE_HOME or ~/.cache), so a fresh clone does not pay the
// npm install again (about 20 s).

import { SERVER_RUN_ARGS } from "../tools/run_args.ts";
import assert from "assert";
import { isolatedEnv, ROOT } from "./harness.ts";
import { has, installOnce, NPM, TEST_CACHE } from "./npm_tools.ts";
import { startSimNode } from "./sim_node/mod.ts";

const VERSION = "1.0.3";
const PREFIX = `${TEST_CACHE}/inspector-cli-${VERSION}/`;
const BUILD = `${PREFIX}node_modules/@modelcontextprotocol/inspector-cli/build`;

const available = await has("node") && await has(NPM);
// deno-lint-ignore no-console -- the printed reason for a skip
if (!available) console.error("inspector_test: skipped, Node.js and npm are not on PATH");

/** Installs the pinned inspector CLI once per machine. */
function ensureInspector(): Promise<void> {
  return installOnce({
    prefix: PREFIX,
    spec: `@modelcontextprotocol/inspector-cli@${VERSION}`,
    installed: `${BUILD}/cli.js`,
  });
}

/** Runs one inspector CLI method against the real server; returns its JSON answer. */
async function inspect(
  env: Record<string, string>,
  method: string[],
): Promise<Record<string, unknown>> {
  const binary = Deno.env.get("MERO_MCP_BIN");
  const [command, ...args] = binary
    ? [binary]
    : [Deno.execPath(), ...SERVER_RUN_ARGS, `${ROOT}main.ts`];
  const envFlags = Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  // The CLI reads its own package.json relative to the working directory: run it from its build folder.
  const out = await new Deno.Command("node", {
    args: ["cli.js", "--cli", ...envFlags, command, ...args, ...method],
    cwd: BUILD,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.ok(out.success, `${stdout}\n${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(stdout.slice(stdout.indexOf("{")));
}

Deno.test({
  name: "the MCP Inspector CLI lists the tools, selects an app and calls a generated tool",
  ignore: !available,
  async fn() {
    await ensureInspector();
    const sim = await startSimNode({ apps: ["kv-store", "bignum"] });
    const kv = sim.appId("kv-store");
    const { contextId } = sim.createContext(kv, { alias: "demo" });
    sim.createContext(sim.appId("bignum"), { alias: "numbers" });
    try {
      const base = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
      const env = {
        CALIMERO_NODE_URL: sim.url,
        CALIMERO_MCP_STATE_DIR: base.CALIMERO_MCP_STATE_DIR,
        CALIMERO_MCP_PROBE_PORTS: base.CALIMERO_MCP_PROBE_PORTS,
        DENO_DIR: base.DENO_DIR,
      };
      const listed = await inspect(env, ["--method", "tools/list"]);
      const names = (listed.tools as { name: string }[]).map((t) => t.name);
      assert.ok(names.includes("kv_store_get") && names.includes("select_app"));

      const selected = await inspect(env, [
        "--method",
        "tools/call",
        "--tool-name",
        "select_app",
        "--tool-arg",
        "app=kv-store",
        "context=demo",
      ]);
      const summary = JSON.parse((selected.content as { text: string }[])[0].text);
      assert.equal(summary.context.id, contextId);

      await inspect(env, [
        "--method",
        "tools/call",
        "--tool-name",
        "kv_store_set",
        "--tool-arg",
        `app_handle=${summary.app_handle}`,
        "key=from",
        "value=inspector",
      ]);
      const got = await inspect(env, [
        "--method",
        "tools/call",
        "--tool-name",
        "kv_store_get",
        "--tool-arg",
        `app_handle=${summary.app_handle}`,
        "key=from",
      ]);
      assert.equal((got.content as { text: string }[])[0].text, '"inspector"');

      // A tuple result passes the CLI's own output-schema check (it failed on `items: false` before).
      const numbers = await inspect(env, [
        "--method",
        "tools/call",
        "--tool-name",
        "select_app",
        "--tool-arg",
        "app=bignum",
        "context=numbers",
      ]);
      const handle = JSON.parse((numbers.content as { text: string }[])[0].text).app_handle;
      const pair = await inspect(env, [
        "--method",
        "tools/call",
        "--tool-name",
        "bignum_echo_pair",
        "--tool-arg",
        `app_handle=${handle}`,
        't=["a","18446744073709551615"]',
      ]);
      assert.equal(pair.isError, undefined, JSON.stringify(pair));
      assert.match((pair.content as { text: string }[])[0].text, /18446744073709551615/);
    } finally {
      await sim.close();
    }
  },
});
