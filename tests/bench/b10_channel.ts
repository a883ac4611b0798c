// B10: the channel. (a) Latency from a peer's event reaching the node's stream to the `notifications/claude/channel`
// line arriving at the client, for a context that was quiet (the first event of a burst: the 250 ms settle is in
// it, by design); (b) how many notifications a burst of 1,000 events makes.

import { emitContextEvent } from "../sim_node/events.ts";
import { jsonBytes } from "../sim_node/json.ts";
import { kvFixture } from "./fixture.ts";
import { atMost, type BenchResult, info, quantile } from "./report.ts";

const METHOD = "notifications/claude/channel";
const ROUNDS = 15;
/** A context is quiet again after the channel's interval (3 s): each round starts a fresh burst. */
const QUIET_MS = 3_200;
const BURST = 1_000;

function inserted(contextId: string, key: string): void {
  emitContextEvent(contextId, "StateMutation", {
    newRoot: "11111111111111111111111111111111",
    events: [{ kind: "Inserted", data: jsonBytes({ key, value: "v" }), handler: null }],
  });
}

/** Runs B10. */
export async function b10(): Promise<BenchResult> {
  const fixture = await kvFixture({ contexts: 1, env: { CALIMERO_MCP_CHANNEL: "selected" } });
  const { server, contexts: [contextId] } = fixture;
  try {
    await new Promise((resolve) => setTimeout(resolve, 500)); // the channel pins what select_app bound
    const latencies: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const emitted = performance.now();
      inserted(contextId, `k${i}`);
      const at = await server.nextNotification(METHOD, 5_000);
      latencies.push(at - emitted);
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    }
    for (let i = 0; i < BURST; i++) inserted(contextId, `b${i}`);
    let notifications = 0;
    for (;;) {
      try {
        await server.nextNotification(METHOD, 8_000);
        notifications++;
      } catch {
        break;
      }
    }
    return {
      id: "B10",
      title: "Channel: a peer's event → notifications/claude/channel",
      metrics: [
        atMost(
          "latency p50 (first event of a quiet context)",
          quantile(latencies, 0.5),
          "ms",
          1_000,
          "≤ 1 s",
        ),
        atMost("latency p99", quantile(latencies, 0.99), "ms", 1_000, "≤ 1 s"),
        atMost(
          `notifications for a burst of ${BURST} events`,
          notifications,
          "",
          5,
          "a handful (≤ 5)",
        ),
        info("rounds", ROUNDS),
      ],
      notes: [
        "The simulated node emits into its event stream; the clock stops when the notification's line arrives at the client.",
        "By design a quiet context's first event waits 250 ms for the rest of its burst; later ones wait out the 3 s interval.",
      ],
    };
  } finally {
    await fixture.close();
  }
}
