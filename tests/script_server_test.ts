// Code mode through the real server (hostile-input-4 M6, M2): a script is stripped and run in its runner, so no script
// can freeze the server, and scripts run under a bound of their own, so the plain app calls of every client are
// answered whatever scripts run.

import assert from "assert";
import { firstText, LEGACY_OPENING, tempHome, until } from "./harness.ts";
import { serverOn } from "./fixture.ts";
import { startServer } from "./raw_client.ts";
import { startSimNode } from "./sim_node/mod.ts";

Deno.test("a script built to freeze the type stripper does not hold the server: it answers meanwhile", async () => {
  await using t = await serverOn();
  // 160 characters that took sucrase 31 s in the server's thread (each level doubles it).
  const code = `return ${"<any>(".repeat(22)}1${")".repeat(22)};`;
  const script = t.call("run_script", { code });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const answers: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await t.client.listTools(undefined, { cacheMode: "refresh" });
    answers.push(performance.now() - started);
  }
  assert.ok(
    Math.max(...answers) < 1_000,
    `tools/list took ${answers.map(Math.round).join(", ")} ms`,
  );
  const result = await script;
  assert.equal(result.isError, true);
  assert.match(firstText(result), /types took over 5 s to strip/);
});

Deno.test("four scripts that only wait or spin leave a plain app call its turn: it answers within a second", async () => {
  await using t = await serverOn({ era: "2025-11-25" });
  const { contextId } = t.sim.createContext(t.sim.appId("kv-store"));
  await t.json("select_app", { app: "kv-store", context: contextId });
  await t.call("kv_store_set", { context: contextId, key: "k", value: "v" });
  const scripts = [
    `while (true) {}`,
    `while (true) {}`,
    `await calimero.waitForEvents({ context: "${contextId}", timeout_s: 8 }); return 1;`,
    `await calimero.waitForEvents({ context: "${contextId}", timeout_s: 8 }); return 1;`,
  ].map((code) => t.call("run_script", { code, timeout_s: 6 }));
  for (const script of scripts) script.catch(() => {}); // a failed assertion closes the connection under them
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const started = performance.now();
  const get = await t.call("kv_store_get", { context: contextId, key: "k" });
  const ms = performance.now() - started;
  assert.match(firstText(get), /"v"/);
  assert.ok(ms < 1_000, `kv_store_get took ${Math.round(ms)} ms while four scripts ran`);
  const answers = await Promise.all(scripts);
  assert.equal(answers.filter((a) => /stopped after 6 s/.test(firstText(a))).length, 2);
});

/** The runner processes whose parent is `pid` (Linux: from /proc). */
function runnersOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (parent === pid && /runner\.ts|--script-runner/.test(cmdline)) {
        found.push(Number(entry.name));
      }
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

Deno.test({
  name:
    "a script's runner ends with the server: killed, the server leaves no spinning runner behind",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const sim = await startSimNode({ apps: ["kv-store"] });
    await using home = await tempHome({ CALIMERO_NODE_URL: sim.url });
    const server = startServer({ env: home.env });
    try {
      for (const message of LEGACY_OPENING) await server.send(message);
      await server.send({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "run_script", arguments: { code: "while (true) {}", timeout_s: 60 } },
      });
      let runners: number[] = [];
      await until(() => (runners = runnersOf(server.pid)).length > 0, 20_000, "the runner");
      // The script is running once its process has spent CPU in the loop (a runner still waiting for its script
      // would end by itself when its stdin closes).
      const cpuTicks = (pid: number) => {
        const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[11]);
      };
      await until(() => cpuTicks(runners[0]) > 50, 20_000, "the script's loop to run");
      await server.kill("SIGKILL");
      const gone = (pid: number) => {
        try {
          return Deno.readTextFileSync(`/proc/${pid}/stat`).includes(") Z ");
        } catch {
          return true;
        }
      };
      await until(() => runners.every(gone), 5_000, "the orphaned runner to end itself");
    } finally {
      await sim.close();
    }
  },
});
