// R4: after a real auth session, a probe inside the running server worker tries every
// way out of the sandbox, and main reports what it can reach once it dropped its permissions: each attempt fails
// with NotCapable. The state dir is 0700 and every file the session created in it (handle.key, tokens-*.json,
// tokens-*.json.lock) is 0600. tests/sandbox_test.ts covers the basic probe; this suite widens it.

import assert from "assert";
import { tempHome } from "../harness.ts";
import { startSimNode } from "../sim_node/mod.ts";
import { callTool, initialize, report, resultText, startServer, valueText } from "../raw_client.ts";

const IS_WINDOWS = Deno.build.os === "windows";
const AUTH = { username: "r4-user", password: "r4-password" };

/** Attempts that must succeed: the state dir is the worker's own. */
const ALLOWED = new Set(["writeStateDir", "readStateDir"]);
/**
 * Deno 2.9 answers `Deno.cwd()` without read permission: it reveals the working directory's path, no content. Its
 * outcome is reported, not asserted.
 */
const DENO_ANSWERS = new Set(["cwd"]);

/** Parses the `[tag] {...}` line a probe wrote to stderr. */
function probeLine(stderr: string, tag: string): Record<string, string> | null {
  const line = stderr.split("\n").find((l) => l.startsWith(`[${tag}] `));
  return line ? JSON.parse(line.slice(tag.length + 3)) : null;
}

/** Every entry under `dir` with its permission bits. */
async function modes(
  dir: string,
  prefix = "",
): Promise<{ path: string; mode: number; dir: boolean }[]> {
  const out: { path: string; mode: number; dir: boolean }[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const full = `${dir}/${entry.name}`;
    const info = await Deno.lstat(full);
    out.push({ path: `${prefix}${entry.name}`, mode: info.mode! & 0o777, dir: info.isDirectory });
    if (info.isDirectory) out.push(...await modes(full, `${prefix}${entry.name}/`));
  }
  return out;
}

Deno.test("R4: inside the running server every way out of the sandbox is NotCapable, main keeps nothing, files are 0600 in a 0700 dir", async () => {
  const sim = await startSimNode({ apps: ["kv-store"], auth: AUTH });
  sim.createContext(sim.appId("kv-store"), { alias: "r4" });
  const { env, cleanup } = await tempHome({
    CALIMERO_NODE_URL: sim.url,
    CALIMERO_USERNAME: AUTH.username,
    CALIMERO_PASSWORD: AUTH.password,
    R4_NODE_PORT: String(sim.port),
  });
  const nodeHome = env.CALIMERO_NODE_HOME;
  await Deno.mkdir(`${nodeHome}/default`, { recursive: true });
  await Deno.writeTextFile(
    `${nodeHome}/default/config.toml`,
    '[server]\nlisten = ["/ip4/127.0.0.1/tcp/2528"]\n[identity]\nkeypair = "r4-private-key"\n',
  );
  await Deno.writeTextFile(`${nodeHome}/outside.js`, "export const secret = 'r4-js';\n");
  await Deno.writeTextFile(`${nodeHome}/outside.json`, '{"secret":"r4-json"}\n');
  const server = startServer({ env, entry: "tests/reliability/sandbox_probe_main.ts" });
  const started = performance.now();
  try {
    await initialize(server);
    // An auth session: login (token file, lock file), a handle (handle.key), an app call.
    const selected = await callTool(server, "select_app", { app: "kv-store", context: "r4" });
    assert.ok(!selected.isError, resultText(selected));
    const handle = JSON.parse(resultText(selected)).app_handle;
    const set = await callTool(server, "kv_store_set", {
      app_handle: handle,
      key: "k",
      value: "v",
    });
    assert.ok(!set.isError, resultText(set));
    assert.equal(sim.stats.logins, 1, "the session logged in");

    await server.until(
      () => probeLine(server.stderr(), "r4-main") !== null,
      10_000,
      "main's report",
    );
    await Deno.writeTextFile(`${env.CALIMERO_MCP_STATE_DIR}/r4-probe`, "", { mode: 0o600 });
    await server.until(() => probeLine(server.stderr(), "r4-probe") !== null, 20_000, "the probe");
    const inside = probeLine(server.stderr(), "r4-probe")!;
    const main = probeLine(server.stderr(), "r4-main")!;

    const escaped = Object.entries(inside).filter(([k, v]) =>
      !ALLOWED.has(k) && !DENO_ANSWERS.has(k) && v !== "NotCapable"
    );
    assert.deepEqual(escaped, [], "every attempt from the worker fails with NotCapable");
    for (const key of ALLOWED) assert.equal(inside[key], "ok", `${key} works`);
    const mainEscaped = Object.entries(main).filter(([, v]) => v !== "NotCapable");
    assert.deepEqual(mainEscaped, [], "main dropped read, write, net, env (and never had run)");
    assert.ok(await Deno.stat(`${nodeHome}/default/config.toml`), "the node home is untouched");

    // The server still works after the probe.
    const get = await callTool(server, "kv_store_get", { app_handle: handle, key: "k" });
    assert.equal(valueText(get), '"v"');

    const stateDir = env.CALIMERO_MCP_STATE_DIR;
    const entries = await modes(stateDir);
    const names = entries.map((e) => e.path);
    assert.ok(names.includes("handle.key"), `handle.key exists: ${names}`);
    assert.ok(names.some((n) => /^tokens-[0-9a-f]{16}\.json$/.test(n)), `a token file: ${names}`);
    assert.ok(names.some((n) => /^tokens-[0-9a-f]{16}\.json\.lock$/.test(n)), `a lock: ${names}`);
    if (!IS_WINDOWS) {
      assert.equal((await Deno.stat(stateDir)).mode! & 0o777, 0o700, "the state dir is 0700");
      const loose = entries.filter((e) => e.mode !== (e.dir ? 0o700 : 0o600))
        .map((e) => `${e.path} ${e.mode.toString(8)}`);
      assert.deepEqual(loose, [], "every file is 0600 and every directory 0700");
    }
    report(
      "R4",
      `${Object.keys(inside).length} worker attempts (cwd: ${inside.cwd}), ${
        Object.keys(main).length
      } main attempts, ${entries.length} state-dir entries checked, in ${
        Math.round(performance.now() - started)
      } ms`,
    );
  } finally {
    if (server.exitCode() === null) await server.kill();
    await sim.close();
    await cleanup();
  }
});
