// B1: cold start, from spawning the process to the `initialize` answer, for mero-mcp and for a minimal stdio
// MCP server on the same SDK with the same flags (baseline_server.ts), spawned alternately.

import { startSimNode } from "../sim_node/mod.ts";
import { unusedPort } from "../harness.ts";
import { MAIN } from "./fixture.ts";
import { atMost, type BenchResult, info, median, sampled } from "./report.ts";
import { initialize, spawnServer } from "./stdio_client.ts";

const RUNS = 10;
const BASELINE = "tests/bench/baseline_server.ts";

/** Spawns `entry`, times spawn → initialize answered, and closes it. */
async function coldStart(entry: string, env: Record<string, string>): Promise<number> {
  const server = await spawnServer(entry, env);
  try {
    await initialize(server);
    return performance.now() - server.spawnedAt;
  } finally {
    await server.close();
  }
}

const PINGS = 300;

/** p50 of `ping` round trips on one started server (after 50 unmeasured), the relay's cost per message. */
async function pingP50(entry: string, env: Record<string, string>): Promise<number> {
  const server = await spawnServer(entry, env);
  try {
    await initialize(server);
    for (let i = 0; i < 50; i++) await server.request("ping");
    const times: number[] = [];
    for (let i = 0; i < PINGS; i++) times.push((await server.request("ping")).ms);
    return median(times);
  } finally {
    await server.close();
  }
}

/** Runs B1. */
export async function b1(): Promise<BenchResult> {
  const sim = await startSimNode();
  const downUrl = `http://127.0.0.1:${await unusedPort()}`;
  const withNode = { CALIMERO_NODE_URL: sim.url };
  const nodeDown = { CALIMERO_NODE_URL: downUrl };
  // A restart: the state directory of an earlier start, with the ABIs it kept (what a person's client sees at each
  // new session; the first start ever reads every ABI from the node).
  const kept = await Deno.makeTempDir({ prefix: "mero-mcp-b1-state-" });
  await Deno.chmod(kept, 0o700);
  const restart = { ...withNode, CALIMERO_MCP_STATE_DIR: kept };
  try {
    // One discarded start of each warms the disk cache and Deno's module and code caches (and fills `kept`).
    await coldStart(BASELINE, {});
    await coldStart(MAIN, withNode);
    await coldStart(MAIN, restart);
    const baseline: number[] = [];
    const ours: number[] = [];
    const restarts: number[] = [];
    const oursDown: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      baseline.push(await coldStart(BASELINE, {}));
      ours.push(await coldStart(MAIN, withNode));
      restarts.push(await coldStart(MAIN, restart));
      oursDown.push(await coldStart(MAIN, nodeDown));
    }
    const base = median(baseline);
    const mine = median(ours);
    const again = median(restarts);
    const down = median(oursDown);
    const pingBase = await pingP50(BASELINE, {});
    const pingOurs = await pingP50(MAIN, withNode);
    return {
      id: "B1",
      title: "cold start: spawn → initialize answered",
      metrics: [
        info("baseline server p50 (the floor)", base, "ms"),
        info(
          "mero-mcp p50, node down (no catalog to wait for: worker and modules alone)",
          down,
          "ms",
        ),
        info("  its ratio ÷ baseline", down / base, "×"),
        sampled(
          info("mero-mcp p50, restart (state directory kept), node up, 8 sample apps", again, "ms"),
          restarts,
        ),
        atMost("restart: ratio mero-mcp ÷ baseline", again / base, "×", 1.5, "≤ 1.5 ×"),
        sampled(atMost("restart: mero-mcp p50", again, "ms", 400, "≤ 400 ms"), restarts),
        sampled(
          info("mero-mcp p50, first start (fresh state directory), node up", mine, "ms"),
          ours,
        ),
        info("  first start: ratio ÷ baseline (reads every ABI first)", mine / base, "×"),
        info("relay: ping round trip p50, baseline", pingBase, "ms"),
        info("relay: ping round trip p50, mero-mcp", pingOurs, "ms"),
        atMost("relay: ping ratio mero-mcp ÷ baseline", pingOurs / pingBase, "×", 1.3, "≤ 1.3 ×"),
      ],
      notes: [
        `p50 of ${RUNS} spawns each, alternating, after one discarded start of each; \`deno run -P=server --quiet\` for both (mero-mcp with its V8 flag too, tools/run_args.ts); the 2025-era initialize written right after spawn.`,
        "Spawned servers share the bench's DENO_DIR (a fresh one per process would add a cache rebuild to every start).",
        "mero-mcp answers initialize only after its first factory call, which waits for the first catalog load (at most 500 ms): with the node up that load is part of the figure.",
        "Targets apply to a restart, what a person's client meets at every new session: the state directory holds the ABIs an earlier start kept, so the catalog is the list, the app records and the identity. A first start also reads every app's ABI from the node (once per app version, ever), so it is shown beside, with its ratio, without a target; the node-down start is the floor of our own start (the sandboxed worker and the module graph).",
        `Relay: ${PINGS} stdio pings each (after 50 unmeasured) on one started server, timed from the request line written to the answer line read; the ping never leaves the process. mero-mcp's worker reads stdin and writes stdout itself (no hop through the main thread); the bare server uses the SDK's own stdio transport.`,
      ],
    };
  } finally {
    await Deno.remove(kept, { recursive: true }).catch(() => {});
    await sim.close();
  }
}
