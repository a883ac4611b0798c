// B8: events. (a) Latency from the node emitting a context event to wait_for_events returning it, on loopback;
// (b) the cost of an open event stream while nothing happens: node requests and server CPU.

import { emitContextEvent } from "../sim_node/events.ts";
import { jsonBytes } from "../sim_node/json.ts";
import { kvFixture } from "./fixture.ts";
import { cpuMsFromSchedstat, HAS_PROC } from "./proc.ts";
import { atMost, type BenchResult, info, type Metric, quantile, sampled } from "./report.ts";
import { callTool, resultJson } from "./stdio_client.ts";

const ROUNDS = 200;
/** How long each round lets the wait settle in the server before the node emits (pacing, not correctness). */
const SETTLE_MS = 15;
const IDLE_SECONDS = 5;

/** Runs B8. */
export async function b8(): Promise<BenchResult> {
  // The catalog poll is pushed out of the way so the idle window shows the stream's cost alone.
  const fixture = await kvFixture({ contexts: 1, env: { CALIMERO_MCP_POLL_SECONDS: "3600" } });
  const { server, sim, contexts: [contextId], handles: [handle] } = fixture;
  try {
    let cursor = resultJson(
      await callTool(server, "wait_for_events", { app_handle: handle, timeout_s: 0 }),
    )
      .cursor as string;
    const latencies: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const waiting = callTool(server, "wait_for_events", {
        app_handle: handle,
        after: cursor,
        timeout_s: 10,
      });
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const emitted = performance.now();
      emitContextEvent(contextId, "StateMutation", {
        newRoot: "11111111111111111111111111111111",
        events: [{
          kind: "Inserted",
          data: jsonBytes({ key: `k${i}`, value: "v" }),
          handler: null,
        }],
      });
      const answer = await waiting;
      const result = resultJson(answer);
      const events = result.events as { payload?: { key?: string } }[];
      if (events.length !== 1 || events[0].payload?.key !== `k${i}`) {
        throw new Error(`round ${i}: wait_for_events returned ${JSON.stringify(result)}`);
      }
      latencies.push(answer.at - emitted);
      cursor = result.cursor as string;
    }

    // Idle: the context stays watched, the stream open, nothing happens.
    sim.resetLog();
    const before = cpuMsFromSchedstat(server.pid);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const after = cpuMsFromSchedstat(server.pid);
    const requests = sim.requests.length;
    const streams = sim.openEventStreams;

    // The same idle window with nothing watched (the stream closed): what the process costs without it.
    await callTool(server, "select_app", { app: "kv-store", context: contextId, watch: false });
    const bareBefore = cpuMsFromSchedstat(server.pid);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const bareAfter = cpuMsFromSchedstat(server.pid);
    const metrics: Metric[] = [
      sampled(
        atMost(
          "event latency p50 (node emits → result line arrives)",
          quantile(latencies, 0.5),
          "ms",
          5,
          "≤ 5 ms",
        ),
        latencies,
      ),
      info("event latency p99", quantile(latencies, 0.99), "ms"),
      {
        name: `node requests in ${IDLE_SECONDS} s with the stream open and nothing happening`,
        value: requests,
        unit: "",
        target: "= 0",
        pass: requests === 0,
      },
      info("event streams open on the node", streams),
    ];
    if (
      HAS_PROC && before !== null && after !== null && bareBefore !== null && bareAfter !== null
    ) {
      metrics.push(
        atMost(
          "server CPU while idle, stream open (schedstat)",
          (after - before) / IDLE_SECONDS,
          "ms/s",
          1,
          "≈ 0 (≤ 1 ms/s)",
        ),
        info(
          "server CPU while idle, nothing watched",
          (bareAfter - bareBefore) / IDLE_SECONDS,
          "ms/s",
        ),
      );
    } else metrics.push(info("server CPU while idle", "skipped (no /proc)"));
    return {
      id: "B8",
      title: "events: latency of wait_for_events, cost of an idle stream",
      metrics,
      notes: [
        `${ROUNDS} rounds, each: a wait_for_events with the previous cursor, ${SETTLE_MS} ms for it to reach the server's wait, then the simulated node emits one kv-store Inserted event (in this process, as core's execute does); the latency runs from the emit to the arrival of the tool result's line, so it covers the SSE frame, the server's decoding with the ABI, the worker relay and stdout.`,
        `Idle: the same server with the context watched and the stream open, the catalog poll set to 3600 s; requests are counted on the node's log and CPU is the server process's, from /proc/<pid>/task/*/schedstat, over ${IDLE_SECONDS} s; then ${IDLE_SECONDS} s more with the context let go (select_app watch: false), for comparison.`,
      ],
    };
  } finally {
    await fixture.close();
  }
}
