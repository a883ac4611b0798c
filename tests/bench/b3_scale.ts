// B3: scale. 200 generated apps × 25 methods (5,000 generated tools) on one simulated node: how long the
// first full catalog takes, what `tools/list` costs (time and bytes), and the server's resident memory.

import { type SimNode, startSimNode } from "../sim_node/mod.ts";
import { generatedApps } from "./apps_gen.ts";
import { MAIN } from "./fixture.ts";
import { HAS_PROC, mib, rssBytes } from "./proc.ts";
import { atMost, type BenchResult, info, median, sampled } from "./report.ts";
import { initialize, spawnServer, type StdioServer } from "./stdio_client.ts";

/** How many apps and methods the scale benchmarks install. */
export const APPS = 200;
export const METHODS = 25;
const LISTS = 10;
const STARTS = 3;

/** A node with the generated apps installed. */
export async function scaleNode(): Promise<SimNode> {
  const sim = await startSimNode({ apps: [] });
  for (const app of generatedApps(APPS, METHODS)) sim.install(app);
  return sim;
}

/** Counts the generated tools in a tools/list result (they carry `_meta["calimero/app"]`). */
export function generatedCount(tools: { _meta?: Record<string, unknown> }[]): number {
  return tools.filter((t) => t._meta?.["calimero/app"] !== undefined).length;
}

/**
 * Waits until the server lists all `expected` generated tools; resolves with the `performance.now()` at
 * which the client could know it (the initialize answer, or the tools/list_changed that announced it).
 */
export async function catalogReady(
  server: StdioServer,
  initializedAt: number,
  expected: number,
  timeoutMs = 60_000,
): Promise<number> {
  let readyAt = initializedAt;
  const deadline = performance.now() + timeoutMs;
  while (true) {
    const { message } = await server.request("tools/list");
    if (generatedCount(message.result.tools) >= expected) return readyAt;
    readyAt = await server.nextNotification(
      "notifications/tools/list_changed",
      Math.max(1, deadline - performance.now()),
    );
  }
}

/** One server start against the scale node: catalog, list and memory figures. */
async function once(sim: SimNode, expected: number) {
  sim.resetLog();
  const server = await spawnServer(MAIN, { CALIMERO_NODE_URL: sim.url });
  try {
    const init = await initialize(server);
    const readyAt = await catalogReady(server, init.at, expected);
    // The node's log stamps arrivals with Date.now(); bring readyAt onto that clock.
    const firstRequest = sim.requests[0]?.at ?? NaN;
    const times: number[] = [];
    let bytes = 0;
    let toolCount = 0;
    for (let i = 0; i < LISTS; i++) {
      const list = await server.request("tools/list");
      times.push(list.ms);
      bytes = list.bytes;
      toolCount = list.message.result.tools.length;
    }
    return {
      catalogMs: performance.timeOrigin + readyAt - firstRequest,
      readyMs: readyAt - server.spawnedAt,
      initializeMs: init.at - server.spawnedAt,
      listMs: median(times),
      bytes,
      toolCount,
      rss: rssBytes(server.pid),
      abiRequests: sim.counts("GET /admin-api/applications/"),
    };
  } finally {
    await server.close();
  }
}

/** p50 of a request answered with `bytes` bytes by tests/bench/pipe_floor.ts: the pipe and the client alone. */
async function pipeFloor(bytes: number): Promise<number> {
  const floor = await spawnServer("tests/bench/pipe_floor.ts", {}, [], [String(bytes)]);
  try {
    const times: number[] = [];
    for (let i = 0; i < LISTS + 2; i++) times.push((await floor.request("tools/list")).ms);
    return median(times.slice(2));
  } finally {
    await floor.close();
  }
}

/** Runs B3. */
export async function b3(): Promise<BenchResult> {
  const installStarted = performance.now();
  const sim = await scaleNode();
  const installMs = performance.now() - installStarted;
  const expected = APPS * METHODS;
  try {
    const runs: Awaited<ReturnType<typeof once>>[] = [];
    for (let i = 0; i < STARTS; i++) runs.push(await once(sim, expected));
    const mid = (pick: (r: typeof runs[number]) => number) => median(runs.map(pick));
    const { bytes, toolCount, abiRequests } = runs[0];
    const floorMs = await pipeFloor(bytes);
    const rss = runs.every((r) => r.rss !== null) ? mid((r) => r.rss!) : null;
    return {
      id: "B3",
      title: `scale: ${APPS} apps × ${METHODS} methods`,
      metrics: [
        info("tools listed (fixed + generated)", toolCount),
        sampled(
          atMost(
            "first full catalog (first node request → tools listed)",
            mid((r) => r.catalogMs),
            "ms",
            1000,
            "≤ 1 s",
          ),
          runs.map((r) => r.catalogMs),
        ),
        info("spawn → all tools listed", mid((r) => r.readyMs), "ms"),
        info("spawn → initialize answered", mid((r) => r.initializeMs), "ms"),
        atMost("tools/list p50", mid((r) => r.listMs), "ms", 20, "≤ 20 ms"),
        info(
          "the same bytes answered by a process that only writes them (the pipe's floor)",
          floorMs,
          "ms",
        ),
        info("tools/list size", Math.round(bytes / 1024), "KiB"),
        info("tools/list size per tool", Math.round(bytes / toolCount), "bytes"),
        rss === null
          ? info("server RSS", "skipped (no /proc)")
          : atMost("server RSS after catalog and lists", mib(rss), "MiB", 200, "≤ 200 MB"),
      ],
      notes: [
        `Medians of ${STARTS} server starts (one start is one first catalog; this figure varies from run to run on a shared machine).`,
        `Apps from tests/bench/apps_gen.ts (seeded; records with u64 and nullable fields, lists, maps, unit and payload variants, aliases, CRDT wrappers; every tenth app has a guide), installed on the simulated node in ${
          Math.round(installMs)
        } ms; the node strips ABI docs like the real route.`,
        `Catalog time runs from the node's first request (its own clock) to the moment the client knew all ${expected} tools were listed (the initialize answer when the first load finished before it, else the tools/list_changed that followed); ${abiRequests} requests to /admin-api/applications/* per start.`,
        `tools/list: p50 of ${LISTS} per start on the 2025-11-25 era, timed to the last byte of the answer line (client-side JSON parsing excluded).`,
        ...(HAS_PROC
          ? ["RSS: VmRSS of /proc/<pid>/status of the server process (main thread and worker)."]
          : []),
      ],
    };
  } finally {
    await sim.close();
  }
}
