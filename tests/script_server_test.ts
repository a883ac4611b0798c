// Code mode through the real server (hostile-input-4 M6, M2): a script is stripped and run in its runner, so no script
// can freeze the server, and scripts run under a bound of their own, so the plain app calls of every client are
// answered whatever scripts run.

import assert from "assert";
import { firstText } from "./harness.ts";
import { serverOn } from "./fixture.ts";

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
