// R6: app handles end to end, through `call`, `call_many` and the generated tools of
// the real process. Tampered, truncated, swapped between apps, contexts, services and versions, after a guide
// change and after key rotation: none is accepted. "Accepted" is measured at the node: a refused call never
// reaches `POST /jsonrpc`, so every batch of refusals must leave the node's execute count unchanged.

import assert from "assert";
import { tempHome } from "../harness.ts";
import fc from "fast-check";
import { type SimNode, startSimNode } from "../sim_node/mod.ts";
import {
  callTool,
  initialize,
  type RawServer,
  report,
  resultText,
  startServer,
  type WireToolResult,
} from "../raw_client.ts";

/** One tool call: a generated tool, `call` or `call_many`. */
type Call = { name: string; arguments: Record<string, unknown> };

/** The units under test: how to reach one method of each through every route, given a handle. */
const UNITS = {
  kv: {
    app: "kv-store",
    generated: "kv_store_set",
    method: "set",
    args: { key: "pwned", value: "x" },
    service: undefined,
  },
  tracker: {
    app: "mero-issue-tracker",
    generated: "mero_issue_tracker_get_repo_info",
    method: "get_repo_info",
    args: {},
    service: undefined,
  },
  registry: {
    app: "mero-drive-docs",
    generated: "mero_drive_d_registry_list_docs",
    method: "list_docs",
    args: {},
    service: "registry",
  },
  docs: {
    app: "mero-drive-docs",
    generated: "mero_drive_d_docs_write",
    method: "write",
    args: { doc_id: "d1", text: "pwned" },
    service: "docs",
  },
} as const;
type UnitName = keyof typeof UNITS;

/** Every route to `unit`'s method with `handle` (plus `extra` arguments such as a context). */
function routes(unit: UnitName, handle: unknown, extra: Record<string, unknown> = {}): Call[] {
  const u = UNITS[unit];
  const service = u.service ? { service: u.service } : {};
  const item = { app_handle: handle, method: u.method, args: u.args, ...service, ...extra };
  return [
    { name: u.generated, arguments: { app_handle: handle, ...u.args, ...extra } },
    { name: "call", arguments: item },
    { name: "call", arguments: { ...item, app: u.app } },
    { name: "call_many", arguments: { calls: [item] } },
  ];
}

/** The app_handle in a select_app or describe_app result (its JSON block; guide blocks may come first). */
function handleIn(result: WireToolResult): string {
  assert.ok(!result.isError, resultText(result));
  for (const block of result.content ?? []) {
    try {
      const value = JSON.parse(block.text ?? "");
      if (typeof value?.app_handle === "string") return value.app_handle;
    } catch {
      // a guide block
    }
  }
  throw new Error(`no app_handle in ${resultText(result).slice(0, 200)}`);
}

/** A running server and node with one context (and handle) per unit. */
interface Fixture {
  sim: SimNode;
  server: RawServer;
  env: Record<string, string>;
  handles: Record<UnitName | "kvB" | "kvDescribe", string>;
  close(): Promise<void>;
}

async function fixture(): Promise<Fixture> {
  const sim = await startSimNode({ apps: ["kv-store", "mero-issue-tracker", "mero-drive-docs"] });
  const kv = sim.appId("kv-store");
  const drive = sim.appId("mero-drive-docs");
  sim.createContext(kv, { alias: "kv-a" });
  sim.createContext(kv, { alias: "kv-b" });
  sim.createContext(sim.appId("mero-issue-tracker"), { alias: "tracker" });
  sim.createContext(drive, { alias: "registry", serviceName: "registry" });
  sim.createContext(drive, { alias: "docs", serviceName: "docs" });
  const { env, cleanup } = await tempHome({ CALIMERO_NODE_URL: sim.url });
  const server = startServer({ env });
  await initialize(server);
  const select = async (app: string, context: string) =>
    handleIn(await callTool(server, "select_app", { app, context }));
  const described = await callTool(server, "describe_app", { app: "kv-store" });
  const handles = {
    kv: await select("kv-store", "kv-a"),
    kvB: await select("kv-store", "kv-b"),
    tracker: await select("mero-issue-tracker", "tracker"),
    registry: await select("mero-drive-docs", "registry"),
    docs: await select("mero-drive-docs", "docs"),
    kvDescribe: handleIn(described),
  };
  return {
    sim,
    server,
    env,
    handles,
    async close() {
      if (server.exitCode() === null) await server.kill();
      await sim.close();
      await cleanup();
    },
  };
}

/** Whether a result admitted the call: a tool result without isError, or a call_many item with ok. */
function admitted(call: Call, result: WireToolResult): boolean {
  if (result.isError) return false;
  if (call.name !== "call_many") return true;
  const items = JSON.parse(resultText(result)).results as { ok: boolean }[];
  return items.some((i) => i.ok);
}

/** Sends every call at once and returns the results in order. */
async function all(server: RawServer, calls: Call[]): Promise<WireToolResult[]> {
  const ids = calls.map((params) => {
    const id = server.nextId();
    void server.send({ jsonrpc: "2.0", id, method: "tools/call", params });
    return id;
  });
  await server.until(
    () => ids.every((id) => server.responses(id).length > 0),
    60_000,
    `${calls.length} answers`,
  );
  return ids.map((id) => {
    const answer = server.responses(id)[0];
    assert.ok("result" in answer, `a tool result: ${JSON.stringify(answer).slice(0, 200)}`);
    return answer.result as WireToolResult;
  });
}

/** Asserts no call is admitted and none reaches the node's JSON-RPC endpoint; returns how many were sent. */
async function noneAccepted(f: Fixture, calls: Call[], what: string): Promise<number> {
  const before = f.sim.counts("POST /jsonrpc");
  const results = await all(f.server, calls);
  const accepted = calls.filter((c, i) => admitted(c, results[i]))
    .map((c) => `${c.name} ${JSON.stringify(c.arguments).slice(0, 160)}`);
  assert.deepEqual(accepted.slice(0, 5), [], `${what}: ${accepted.length} accepted`);
  assert.equal(f.sim.counts("POST /jsonrpc"), before, `${what}: nothing reached the node`);
  return calls.length;
}

/** The positive control: the genuine handles are accepted on their own units (the suite can fail). */
async function genuineAccepted(f: Fixture, units: UnitName[]): Promise<void> {
  for (const unit of units) {
    const before = f.sim.counts("POST /jsonrpc");
    const calls = routes(unit, f.handles[unit]);
    const results = await all(f.server, calls);
    calls.forEach((c, i) =>
      assert.ok(admitted(c, results[i]), `${unit} via ${c.name}: ${resultText(results[i])}`)
    );
    assert.equal(f.sim.counts("POST /jsonrpc"), before + calls.length, `${unit} reached the node`);
  }
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

function b64url(text: string): string {
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function payloadOf(handle: string): Record<string, unknown> {
  const body = handle.split(".")[0].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(body));
}

Deno.test("R6: tampered handles (every single-character change, forged payloads under the genuine MAC) are never accepted", async () => {
  const f = await fixture();
  const started = performance.now();
  try {
    await genuineAccepted(f, ["kv"]);
    const h = f.handles.kv;
    const changed: string[] = [];
    for (let i = 0; i < h.length; i++) {
      const c = h[i] === "." ? "A" : B64URL[(B64URL.indexOf(h[i]) + 1) % 64];
      changed.push(h.slice(0, i) + c + h.slice(i + 1));
    }
    const [body, mac] = h.split(".");
    const genuine = payloadOf(h);
    const others = [f.handles.kvB, f.handles.tracker, f.handles.registry].map(payloadOf);
    const forged: string[] = [];
    for (const key of ["a", "p", "v", "g", "c", "s"]) {
      for (const other of others) {
        if (other[key] === genuine[key]) continue;
        forged.push(`${b64url(JSON.stringify({ ...genuine, [key]: other[key] }))}.${mac}`);
      }
    }
    forged.push(`${b64url(JSON.stringify({ ...genuine, v: "9.9.9" }))}.${mac}`);
    forged.push(`${b64url(JSON.stringify(genuine, null, 1))}.${mac}`);
    forged.push(`${body}.${f.handles.kvB.split(".")[1]}`);
    let sent = 0;
    // Every change through `call`; every third through the generated tool and call_many as well.
    sent += await noneAccepted(
      f,
      changed.map((x) => routes("kv", x)[1]),
      "single-character changes via call",
    );
    sent += await noneAccepted(
      f,
      changed.filter((_, i) => i % 3 === 0).flatMap((
        x,
      ) => [routes("kv", x)[0], routes("kv", x)[3]]),
      "single-character changes via the generated tool and call_many",
    );
    sent += await noneAccepted(f, forged.flatMap((x) => routes("kv", x)), "forged payloads");
    report(
      "R6",
      `tampered: ${sent} refused calls in ${Math.round(performance.now() - started)} ms`,
    );
  } finally {
    await f.close();
  }
});

/** The context id a genuine handle names. */
function contextOf(f: Fixture, unit: keyof Fixture["handles"]): string {
  return payloadOf(f.handles[unit]).c as string;
}

Deno.test("R6: truncated handles and their pieces are never accepted", async () => {
  const f = await fixture();
  const started = performance.now();
  try {
    const h = f.handles.tracker;
    const [body, mac] = h.split(".");
    const pieces = [
      ...Array.from({ length: h.length }, (_, n) => h.slice(0, n)),
      ...Array.from({ length: 40 }, (_, n) => h.slice(n + 1)),
      body,
      mac,
      `${body}.`,
      `.${mac}`,
      `${body}.${mac.slice(0, -1)}`,
      `${body.slice(0, -1)}.${mac}`,
      `${h}.`,
      ` ${h}`,
      `${h}\n`,
    ];
    let sent = await noneAccepted(
      f,
      pieces.map((x) => routes("tracker", x)[1]),
      "truncations via call",
    );
    sent += await noneAccepted(
      f,
      pieces.filter((_, i) => i % 4 === 0).flatMap((x) => routes("tracker", x)),
      "truncations via every route",
    );
    await genuineAccepted(f, ["tracker"]);
    report(
      "R6",
      `truncated: ${sent} refused calls in ${Math.round(performance.now() - started)} ms`,
    );
  } finally {
    await f.close();
  }
});

Deno.test("R6: handles swapped between apps, contexts and services are never accepted", async () => {
  const f = await fixture();
  const started = performance.now();
  try {
    const units: UnitName[] = ["kv", "tracker", "registry", "docs"];
    const swaps: Call[] = [];
    for (const target of units) {
      for (const source of units) {
        if (source === target) continue;
        // The generated tool and `call` naming the target app, with another unit's handle.
        const [generated, , namedApp] = routes(target, f.handles[source]);
        swaps.push(generated, namedApp);
        // `call` naming the target's service with another service's handle of the same app, and the target's
        // method by the handle alone.
        if (UNITS[target].app === UNITS[source].app) {
          const u = UNITS[target];
          swaps.push(routes(target, f.handles[source])[1], {
            name: "call",
            arguments: { app_handle: f.handles[source], method: u.method, args: u.args },
          });
        }
      }
    }
    let sent = await noneAccepted(f, swaps, "handles of another app or service");
    // Contexts: a handle with another context of the same app, or of another app; app + a foreign context.
    const contexts: Call[] = [
      ...routes("kv", f.handles.kv, { context: "kv-b" }),
      ...routes("kv", f.handles.kv, { context: contextOf(f, "kvB") }),
      ...routes("kv", f.handles.kv, { context: "tracker" }),
      ...routes("registry", f.handles.registry, { context: "docs" }),
      { name: "call", arguments: { app: "kv-store", context: "tracker", method: "set", args: {} } },
      {
        name: "call",
        arguments: {
          app: "mero-drive-docs",
          service: "docs",
          context: "registry",
          method: "word_count",
          args: { doc_id: "d" },
        },
      },
      { name: "kv_store_set", arguments: { context: "tracker", key: "pwned", value: "x" } },
      { name: "mero_drive_d_docs_word_count", arguments: { context: "registry", doc_id: "d" } },
    ];
    sent += await noneAccepted(f, contexts, "handles or contexts of another context");
    // A handle bound to no context (describe_app), and a handle whose context was deleted.
    sent += await noneAccepted(f, routes("kv", f.handles.kvDescribe), "a describe_app handle");
    const deleted = await callTool(f.server, "delete_context", { context: "kv-b" });
    assert.ok(!deleted.isError, resultText(deleted));
    sent += await noneAccepted(f, routes("kv", f.handles.kvB), "a handle of a deleted context");
    await genuineAccepted(f, units);
    report(
      "R6",
      `swapped: ${sent} refused calls in ${Math.round(performance.now() - started)} ms`,
    );
  } finally {
    await f.close();
  }
});

Deno.test("R6: an upgrade or a guide change makes every earlier handle stale", async () => {
  const f = await fixture();
  try {
    await genuineAccepted(f, ["kv", "tracker"]);
    f.sim.upgrade(f.sim.appId("kv-store"), { version: "1.1.0" }, { migrateContexts: true });
    const tracker = f.sim.state.apps.get(f.sim.appId("mero-issue-tracker"))!;
    f.sim.upgrade(tracker.id, {
      guide: "# A new guide\n\nThe author rewrote it.",
      version: tracker.version ?? undefined,
    });
    let sent = await noneAccepted(
      f,
      routes("kv", f.handles.kv),
      "a handle from before the upgrade",
    );
    sent += await noneAccepted(
      f,
      routes("tracker", f.handles.tracker),
      "a handle from before the guide change",
    );
    const fresh = await callTool(f.server, "select_app", { app: "kv-store", context: "kv-a" });
    f.handles.kv = handleIn(fresh);
    await genuineAccepted(f, ["kv"]);
    report("R6", `versions and guides: ${sent} refused calls`);
  } finally {
    await f.close();
  }
});

Deno.test("R6: after key rotation (handle.key deleted, restart) and under another server's key, no handle is accepted", async () => {
  const f = await fixture();
  try {
    const old = { ...f.handles };
    const code = await f.server.close();
    assert.equal(code, 0);
    await Deno.remove(`${f.env.CALIMERO_MCP_STATE_DIR}/handle.key`);
    const restarted = startServer({ env: f.env });
    f.server = restarted;
    await initialize(restarted);
    const units: UnitName[] = ["kv", "tracker", "registry", "docs"];
    let sent = await noneAccepted(
      f,
      units.flatMap((u) => routes(u, old[u])),
      "handles from before the rotation",
    );
    // Another server (its own state dir, so its own key) issues a handle for the same app and context.
    const { env, cleanup } = await tempHome({ CALIMERO_NODE_URL: f.sim.url });
    const other = startServer({ env });
    try {
      await initialize(other);
      const selected = await callTool(other, "select_app", { app: "kv-store", context: "kv-a" });
      const foreign = handleIn(selected);
      sent += await noneAccepted(f, routes("kv", foreign), "a handle under another server's key");
    } finally {
      await other.kill();
      await cleanup();
    }
    const fresh = await callTool(restarted, "select_app", { app: "kv-store", context: "kv-a" });
    f.handles.kv = handleIn(fresh);
    await genuineAccepted(f, ["kv"]);
    report("R6", `key rotation: ${sent} refused calls`);
  } finally {
    await f.close();
  }
});

Deno.test("R6: random edits of a genuine handle (fast-check, seeded) are never accepted", async () => {
  const f = await fixture();
  try {
    const h = f.handles.docs;
    const edit = fc.tuple(
      fc.nat({ max: h.length }),
      fc.nat({ max: 8 }),
      fc.string({ maxLength: 6, unit: fc.constantFrom(...B64URL, ".", "=", "+", "/") }),
    ).map(([at, cut, insert]) => h.slice(0, at) + insert + h.slice(Math.min(h.length, at + cut)));
    const mutants = [...new Set(fc.sample(edit, { numRuns: 400, seed: 6 }))].filter((x) => x !== h);
    const sent = await noneAccepted(
      f,
      mutants.flatMap((x, i) => i % 2 ? [routes("docs", x)[1]] : [routes("docs", x)[0]]),
      "random edits",
    );
    await genuineAccepted(f, ["docs"]);
    report("R6", `random edits: ${sent} refused calls`);
  } finally {
    await f.close();
  }
});
