// B3: scale. 200 generated apps × 25 methods (5,000 generated tools) on one simulated node: how long the
// first full catalog takes, what `tools/list` costs (time and bytes), and the server's resident memory.

import { type SimNode, startSimNode } from "../sim_node/mod.ts";
import { generatedApps } from "./apps_gen.ts";
import { MAIN } from "./fixture.ts";
import { HAS_PROC, mib, rssBytes } from "./proc.ts";
import { atMost, type BenchResult, info, median } from "./report.ts";
import { initialize, spawnServer, type StdioServer } from "./stdio_client.ts";

/** How many apps and methods the scale benchmarks install. */
export const APPS = 200;
export const METHODS = 25;
const LISTS = 10;

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

/** Runs B3. */
export async function b3(): Promise<BenchResult> {
  const installStarted = performance.now();
  const sim = await scaleNode();
  const installMs = performance.now() - installStarted;
  const expected = APPS * METHODS;
  const server = await spawnServer(MAIN, { CALIMERO_NODE_URL: sim.url });
  try {
    const init = await initialize(server);
    const readyAt = await catalogReady(server, init.at, expected);
    // The node's log stamps arrivals with Date.now(); bring readyAt onto that clock.
    const readyEpoch = performance.timeOrigin + readyAt;
    const firstRequest = sim.requests[0]?.at ?? NaN;
    const catalogMs = readyEpoch - firstRequest;
    const times: number[] = [];
    let bytes = 0;
    let toolCount = 0;
    for (let i = 0; i < LISTS; i++) {
      const list = await server.request("tools/list");
      times.push(list.ms);
      bytes = list.bytes;
      toolCount = list.message.result.tools.length;
    }
    const rss = rssBytes(server.pid);
    const abiRequests = sim.counts("GET /admin-api/applications/");
    return {
      id: "B3",
      title: `scale: ${APPS} apps × ${METHODS} methods`,
      metrics: [
        info("tools listed (fixed + generated)", toolCount),
        atMost(
          "first full catalog (first node request → tools listed)",
          catalogMs,
          "ms",
          2000,
          "≤ 2 s",
        ),
        info("spawn → all tools listed", readyAt - server.spawnedAt, "ms"),
        info("spawn → initialize answered", init.at - server.spawnedAt, "ms"),
        atMost("tools/list p50", median(times), "ms", 100, "≤ 100 ms"),
        info("tools/list size", Math.round(bytes / 1024), "KiB"),
        info("tools/list size per tool", Math.round(bytes / toolCount), "bytes"),
        rss === null
          ? info("server RSS", "skipped (no /proc)")
          : atMost("server RSS after catalog and lists", mib(rss), "MiB", 200, "≤ 200 MB"),
      ],
      notes: [
        `Apps from tests/bench/apps_gen.ts (seeded; records with u64 and nullable fields, lists, maps, unit and payload variants, aliases, CRDT wrappers; every tenth app has a guide), installed on the simulated node in ${
          Math.round(installMs)
        } ms; the node strips ABI docs like the real route.`,
        `Catalog time runs from the node's first request (its own clock) to the moment the client knew all ${expected} tools were listed (the initialize answer when the first load fit in the 500 ms start-up budget, else the tools/list_changed that followed); ${abiRequests} requests to /admin-api/applications/* were made.`,
        `tools/list: p50 of ${LISTS} on the 2025-11-25 era, timed to the last byte of the answer line (client-side JSON parsing excluded).`,
        ...(HAS_PROC
          ? ["RSS: VmRSS of /proc/<pid>/status of the server process (main thread and worker)."]
          : []),
      ],
    };
  } finally {
    await server.close();
    await sim.close();
  }
}
