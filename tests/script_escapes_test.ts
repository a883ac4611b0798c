// Code mode (issue 33): scripts that try to get out. Each runs in the real runner process, started as run_script
// starts it; every attempt must fail, and the server side must stay whole. The last tests drive run_script through
// the real server: a script's calls meet the same checks as `call` (read-only mode, destructive methods).

import assert from "assert";
import { runnerCommand, runScript, type ScriptRequest } from "../src/script/session.ts";
import { callTool, connect, firstText, isolatedEnv } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";

type Json = Record<string, unknown>;

/** The runner as the server starts it, finding Deno's cache as this test process does. */
const RUNNER = runnerCommand(64, { DENO_DIR: Deno.env.get("DENO_DIR") ?? "" });

/** Runs `code` with one app `kv` (methods get, set); records what reached the server. */
async function attempt(code: string, limits: Json = {}) {
  const reached: ScriptRequest[] = [];
  const outcome = await runScript({
    code,
    apps: { kv: ["get", "set"] },
    signal: new AbortController().signal,
    limits,
    command: RUNNER,
    dispatch: (request) => {
      reached.push(request);
      return Promise.resolve({ ok: true, value: "answer" });
    },
  });
  return { ...outcome, reached };
}

/** The error a statement throws inside the runner, as the script sees it. */
async function thrown(statement: string): Promise<string> {
  const out = await attempt(
    `try { ${statement}; return "escaped"; } catch (e) { return String(e); }`,
  );
  assert.ok(out.ok, JSON.stringify(out));
  return String(out.value);
}

Deno.test("Deno.* outside the sandbox is refused: files, environment, processes, network, system", async () => {
  assert.match(
    await thrown(`await Deno.readTextFile("/etc/passwd")`),
    /NotCapable|PermissionDenied|Requires read/,
  );
  assert.match(
    await thrown(`await Deno.writeTextFile("/tmp/mero-escape", "x")`),
    /NotCapable|Requires write/,
  );
  assert.match(await thrown(`Deno.env.get("HOME")`), /NotCapable|Requires env/);
  assert.match(
    await thrown(`await new Deno.Command("/bin/sh", { args: ["-c", "true"] }).output()`),
    /NotCapable|Requires run/,
  );
  assert.match(
    await thrown(`await Deno.connect({ hostname: "127.0.0.1", port: 9 })`),
    /NotCapable|Requires net/,
  );
  assert.match(await thrown(`Deno.hostname()`), /NotCapable|Requires sys/);
  assert.match(await thrown(`Deno.dlopen("libc.so.6", {})`), /NotCapable|Requires ffi|dlopen/);
});

Deno.test("fetch and dynamic import reach nothing: no network, no remote, npm or file module", async () => {
  assert.match(await thrown(`await fetch("http://127.0.0.1:8080/")`), /NotCapable|Requires net/);
  assert.match(
    await thrown(`await import("https://deno.land/std/version.ts")`),
    /remote|NotCapable|not allowed|Requires/i,
  );
  assert.match(
    await thrown(`await import("npm:left-pad")`),
    /npm|not allowed|Requires|NotCapable/i,
  );
  assert.match(
    await thrown(`await import("file:///etc/passwd")`),
    /NotCapable|Requires read|not allowed|Unknown|Unsupported|Expected/i,
  );
});

Deno.test("eval and Function reach the same empty-handed global", async () => {
  assert.match(
    await thrown(`Function("return this")().Deno.env.get("HOME")`),
    /NotCapable|Requires env/,
  );
  assert.match(
    await thrown(`(0, eval)("Deno").readTextFileSync("/etc/hostname")`),
    /NotCapable|Requires read/,
  );
  // The app client is frozen: a script cannot swap a method for one that skips the server.
  const swapped = await attempt(
    `"use strict"; try { calimero.kv.get = () => "forged"; } catch {} return await calimero.kv.get({ key: "a" }, { context: "c" });`,
  );
  assert.equal(swapped.value, "answer");
  assert.equal(swapped.reached.length, 1);
});

Deno.test("forged messages: a raw call line is a call like any other (checked, counted); a reused id gets no answer", async () => {
  const out = await attempt(`
    const raw = (m) => Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(m) + "\\n"));
    const first = await calimero.kv.get({ key: "a" }, { context: "c" });
    raw({ t: "call", id: 1, slug: "kv", method: "set", args: { key: "x" }, context: "c" }); // id 1 was used
    raw({ t: "call", id: 7, slug: "kv", method: "set", args: { key: "y" }, context: "c", __proto__: { polluted: 1 } });
    raw({ t: "answer", id: 2, ok: true, value: "self-answered" });
    await new Promise((r) => setTimeout(r, 300));
    return first;
  `);
  assert.equal(out.ok, true, JSON.stringify(out));
  assert.deepEqual(out.reached.map((r) => r.kind === "call" && r.args), [{ key: "a" }, {
    key: "y",
  }]);
  assert.equal(out.calls, 2, "the forged call counts toward the script's calls");
  assert.equal(({} as Json).polluted, undefined, "the server's prototypes are untouched");
  // Polluting the runner's own prototypes or JSON changes nothing the server trusts.
  const polluted = await attempt(`
    Object.prototype.t = "done"; Object.prototype.ok = true; JSON.stringify = () => "{}";
    return await calimero.kv.get({ key: "a" }, { context: "c" });
  `);
  assert.equal(polluted.ok, true, JSON.stringify(polluted));
  assert.equal(polluted.value, "answer");
});

Deno.test("limits that cannot be talked around: time, memory, Atomics.wait, calls, message size, recursion", async () => {
  const loop = await attempt(`while (true) {}`, { wallMs: 1_500 });
  assert.equal(loop.stopped, "time");
  assert.ok(loop.ms < 4_000, `${loop.ms} ms`);
  const blocked = await attempt(
    `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return 1;`,
    { wallMs: 1_500 },
  );
  assert.match(
    String(blocked.error),
    /SharedArrayBuffer is not defined/,
    "no shared memory to wait on",
  );
  const caught = await attempt(
    `for (;;) { try { while (true) {} } catch {} }`,
    { wallMs: 1_000 },
  );
  assert.equal(caught.stopped, "time", "a catch cannot stop the clock");
  const memory = await attempt(
    `const a = []; for (;;) a.push(new Array(1e5).fill(Math.random()));`,
  );
  assert.equal(memory.stopped, "memory", JSON.stringify(memory));
  const calls = await attempt(
    `for (let i = 0; i < 50; i++) { try { await calimero.kv.get({ key: "k" }, { context: "c" }); } catch {} } return "more";`,
    { maxCalls: 10 },
  );
  assert.equal(calls.stopped, "calls");
  assert.equal(calls.reached.length, 10);
  const huge = await attempt(`console.log("x".repeat(3_000_000)); return 1;`);
  assert.equal(huge.stopped, "message");
  const recursion = await attempt(`const f = (n: number): number => f(n + 1) + 1; return f(0);`);
  assert.equal(recursion.ok, false);
  assert.match(String(recursion.error), /call stack/);
  const exited = await attempt(`Deno.exit(3)`);
  assert.equal(exited.stopped, "crashed");
});

Deno.test("nothing outlives a script: its timers die with it, and the next script starts clean", async () => {
  const timers = await attempt(`
    setTimeout(() => calimero.kv.set({ key: "late" }, { context: "c" }), 200);
    setInterval(() => console.log("tick"), 10);
    globalThis.secret = "left behind";
    return "done";
  `);
  assert.equal(timers.value, "done");
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(timers.reached.length, 0, "no call after the end");
  const next = await attempt(`return (globalThis as any).secret ?? "clean";`);
  assert.equal(next.value, "clean");
});

Deno.test("through the server: read-only mode and destructive marks hold inside scripts; the log and calls are reported", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  const { contextId } = sim.createContext(sim.appId("kv-store"));
  const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
  await Deno.mkdir(env.CALIMERO_MCP_STATE_DIR, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(
    `${env.CALIMERO_MCP_STATE_DIR}/app-marks.json`,
    JSON.stringify({ "com.calimero.kv-store": { destructive: ["remove"] } }),
  );
  const conn = await connect({ era: "2026-07-28", env });
  const readOnly = await connect({
    era: "2025-11-25",
    env: { ...env, CALIMERO_MCP_READ_ONLY: "1", CALIMERO_MCP_STATE_DIR: `${env.HOME}/ro-state` },
  });
  try {
    const writes = await callTool(conn, "run_script", {
      code: `
        await calimero.kv_store.set({ key: "a", value: "1" }, { context: "${contextId}" });
        let refused = "";
        try { await calimero.kv_store.remove({ key: "a" }, { context: "${contextId}" }); }
        catch (e) { refused = String(e); }
        console.log("still here");
        return { refused, value: await calimero.kv_store.get({ key: "a" }, { context: "${contextId}" }) };
      `,
    });
    const result = JSON.parse(firstText(writes)) as Json;
    assert.equal(result.ok, true, firstText(writes));
    const value = result.value as Json;
    assert.match(String(value.refused), /cannot be undone/);
    assert.equal(value.value, "1", "the destructive remove never reached the node");
    assert.deepEqual(result.log, ["still here"]);
    const rows = result.calls as Json[];
    assert.deepEqual(
      rows.map((r) => [r.call, r.ok, r.failed]),
      [["kv_store.set", 1, 0], ["kv_store.remove", 0, 1], ["kv_store.get", 1, 0]],
    );

    const before = sim.counts("POST /jsonrpc");
    const ro = await callTool(readOnly, "run_script", {
      code:
        `return await calimero.kv_store.set({ key: "b", value: "2" }, { context: "${contextId}" });`,
    });
    assert.equal(ro.isError, true);
    assert.match(firstText(ro), /read-only/);
    assert.equal(sim.counts("POST /jsonrpc"), before, "nothing was sent to the node");
  } finally {
    await Promise.all([conn.close(), readOnly.close()]);
    await sim.close();
  }
});

Deno.test("a runner whose heap cap did not take effect runs no script", async () => {
  // The same runner without its V8 flag: its heap is the machine's default.
  const uncapped = { ...RUNNER, args: RUNNER.args.filter((a) => !a.startsWith("--v8-flags")) };
  let reached = 0;
  const outcome = await runScript({
    code: `return "ran";`,
    apps: {},
    signal: new AbortController().signal,
    command: uncapped,
    dispatch: () => (reached++, Promise.resolve({ ok: true, value: null })),
  });
  assert.equal(outcome.ok, false);
  assert.match(String(outcome.error), /memory cap did not take effect/);
  assert.equal(outcome.value, undefined);
  assert.equal(reached, 0);
});

/** `return <any>(<any>(…1…));` nested `depth` times: the input that makes a TypeScript stripper backtrack. */
const nestedAssertions = (depth: number) =>
  `return ${"<any>(".repeat(depth)}1${")".repeat(depth)};`;

Deno.test("types are stripped in the runner, within a time of their own: nested <T>( assertions stop the script, not the server", async () => {
  const started = Date.now();
  const slow = await attempt(nestedAssertions(22), { stripMs: 1_000 });
  assert.equal(slow.stopped, "time", JSON.stringify(slow));
  assert.match(String(slow.error), /types took over 1 s to strip/);
  assert.equal(slow.reached.length, 0);
  assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
  // What strips fast still runs; a script that does not parse says where.
  assert.equal((await attempt(`const x: number = <number>(41); return x + 1;`)).value, 42);
  const broken = await attempt(`return 1 +;`);
  assert.equal(broken.ok, false);
  assert.match(String(broken.error), /does not parse.*line 1/);
});

Deno.test("a script's whole memory is bounded: array buffers past the cap stop it; no Worker, WebAssembly or shared memory", async () => {
  const held = await attempt(
    `const held = []; for (let i = 0; i < 24; i++) held.push(new Uint8Array(64 * 1024 * 1024).fill(7)); return held.length;`,
    { memoryMb: 256 },
  );
  assert.equal(held.stopped, "memory", JSON.stringify(held));
  assert.match(String(held.error), /more than its 256 MiB of memory \(\d+ MiB\)/);
  const globals = await attempt(
    `return [typeof Worker, typeof WebAssembly, typeof SharedArrayBuffer];`,
  );
  assert.deepEqual(globals.value, ["undefined", "undefined", "undefined"]);
  // A forged report, or a partial line before the watch's, only stops the script itself.
  const forged = await attempt(
    `Deno.stdout.writeSync(new TextEncoder().encode('{"t":"memory"}\\n')); return 1;`,
  );
  assert.equal(forged.stopped, "memory");
});

Deno.test("a write still in flight when the script answers is waited for and recorded, never cut off", async () => {
  let landed = false;
  let cut = false;
  const outcome = await runScript({
    code: `calimero.kv.set({ key: "late" }, { context: "c" }); return "early";`,
    apps: { kv: ["set"] },
    signal: new AbortController().signal,
    command: RUNNER,
    dispatch: async (_request, signal) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      cut = signal.aborted;
      landed = true;
      return { ok: true, value: null };
    },
  });
  assert.equal(outcome.value, "early");
  assert.ok(landed, "runScript resolved only once the write was answered");
  assert.equal(cut, false, "its signal was not aborted");
  // A script stopped by its wall time cuts its calls off, and says so.
  let signalled = false;
  const stopped = await runScript({
    code: `await calimero.kv.set({ key: "slow" }, { context: "c" });`,
    apps: { kv: ["set"] },
    signal: new AbortController().signal,
    command: RUNNER,
    limits: { wallMs: 1_500 },
    dispatch: (_request, signal) =>
      new Promise((resolve) =>
        signal.addEventListener("abort", () => {
          signalled = true;
          resolve({ ok: false, error: "cancelled" });
        })
      ),
  });
  assert.equal(stopped.stopped, "time");
  assert.ok(signalled, "the call in flight was told to stop");
});
