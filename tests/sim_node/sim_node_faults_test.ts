// Fault injection on the simulated node: each kind is observable with plain fetch, scopes narrow
// it, and clearing a fault (or closing the node) releases held requests.

import assert from "assert";
import { type SimNode, startSimNode } from "./mod.ts";
import { call, withSim } from "./testing.ts";

const HEALTH = "/admin-api/health";
const APPS = "/admin-api/applications";

async function raw(sim: SimNode, path: string, signal?: AbortSignal) {
  const response = await fetch(`${sim.url}${path}`, { signal });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

Deno.test("down refuses connections until cleared, on the same URL", async () => {
  await withSim({ apps: [] }, async (sim) => {
    sim.setFault({ kind: "down" });
    await assert.rejects(() => fetch(`${sim.url}${HEALTH}`), TypeError);
    assert.equal(sim.counts(), 0, "nothing reached the node");
    await sim.setFault(null);
    assert.equal((await raw(sim, HEALTH)).status, 200);
    for (let i = 0; i < 20; i++) {
      sim.setFault({ kind: "down" });
      await sim.setFault(null);
      assert.equal((await raw(sim, HEALTH)).status, 200);
    }
    sim.setFault({ kind: "down" });
    const up = sim.setFault(null);
    sim.setFault({ kind: "down" });
    await up;
    await assert.rejects(() => fetch(`${sim.url}${HEALTH}`), TypeError, "the last word wins");
    await sim.setFault(null);
    assert.equal((await raw(sim, HEALTH)).status, 200);
  });
});

Deno.test("slow delays the normal answer", async () => {
  await withSim({ apps: [] }, async (sim) => {
    sim.setFault({ kind: "slow", delayMs: 120 });
    const started = performance.now();
    assert.equal((await raw(sim, HEALTH)).status, 200);
    assert.ok(performance.now() - started >= 110);
  });
});

Deno.test("hang never answers until the fault is cleared", async () => {
  await withSim({ apps: [] }, async (sim) => {
    sim.setFault({ kind: "hang" });
    await assert.rejects(
      () => raw(sim, HEALTH, AbortSignal.timeout(100)),
      (e: Error) => e.name === "TimeoutError",
    );
    const held = raw(sim, HEALTH);
    await waitFor(() => sim.counts() === 2);
    sim.setFault(null);
    assert.equal((await held).status, 200, "released requests run normally");
  });
});

Deno.test("closing the node releases a hanging request", async () => {
  const sim = await startSimNode({ apps: [] });
  sim.setFault({ kind: "hang" });
  const pending = raw(sim, HEALTH).catch((e) => e);
  await waitFor(() => sim.counts() === 1);
  await sim.close();
  const outcome = await pending;
  assert.ok(outcome instanceof Error || outcome.status === 503);
});

/** Waits for a condition by polling the event loop (no fixed sleep), failing after 2 s. */
async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met within 2 s");
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

Deno.test("status, malformed, truncated and huge faults each shape the answer", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    const normal = await raw(sim, APPS);
    sim.setFault({ kind: "status", status: 503 });
    const status = await raw(sim, APPS);
    assert.deepEqual([status.status, JSON.parse(status.text).error], [
      503,
      "simulated fault: HTTP 503",
    ]);
    sim.setFault({ kind: "malformed" });
    const malformed = await raw(sim, APPS);
    assert.equal(malformed.status, 200);
    assert.throws(() => JSON.parse(malformed.text), SyntaxError);
    sim.setFault({ kind: "truncated" });
    const truncated = await raw(sim, APPS);
    assert.equal(truncated.status, 200);
    assert.ok(normal.text.startsWith(truncated.text) && truncated.text.length < normal.text.length);
    assert.throws(() => JSON.parse(truncated.text), SyntaxError);
    sim.setFault({ kind: "huge", bytes: 3_000_000 });
    const huge = await raw(sim, APPS);
    assert.equal(huge.headers.get("content-length"), "3000000");
    assert.equal(huge.text.length, 3_000_000);
  });
});

Deno.test("flapping alternates failures and successes", async () => {
  await withSim({ apps: [] }, async (sim) => {
    sim.setFault({ kind: "flapping", every: 2 });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await raw(sim, HEALTH)).status);
    assert.deepEqual(statuses, [503, 503, 200, 200, 503, 503]);
  });
});

Deno.test("missingRoute answers a bare 404 for that route only", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    sim.setFault({ kind: "missingRoute", path: "/admin-api/applications/:app/abi" });
    const abi = await raw(sim, `${APPS}/${sim.appId("kv-store")}/abi`);
    assert.deepEqual([abi.status, abi.text], [404, ""]);
    assert.equal((await raw(sim, APPS)).status, 200);
  });
});

Deno.test("a fault scope narrows it to a path and a number of requests", async () => {
  await withSim({ apps: [] }, async (sim) => {
    sim.setFault({ kind: "status", status: 500 }, { pathPrefix: "/jsonrpc", times: 2 });
    assert.equal((await raw(sim, HEALTH)).status, 200);
    const rpc = () => call(sim, "POST", "/jsonrpc", {}).then((a) => a.status);
    assert.deepEqual([await rpc(), await rpc()], [500, 500]);
    assert.equal(sim.fault, null, "cleared after two");
    assert.equal(await rpc(), 200, "a JSON-RPC refusal is an HTTP 200 (core jsonrpc.rs)");
  });
});
