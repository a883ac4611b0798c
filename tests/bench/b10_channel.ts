// B10: the channel, and `mero-mcp watch` beside it. (a) Latency from a peer's event reaching the node's stream to the
// `notifications/claude/channel` line arriving at the client — and to the watch's stdout line — for a context that
// was quiet (the first event of a burst: the 250 ms settle is in it, by design); (b) how many notifications, and how
// many watch lines, a burst of 1,000 events makes.

import { emitContextEvent } from "../sim_node/events.ts";
import { jsonBytes } from "../sim_node/json.ts";
import { kvFixture } from "./fixture.ts";
import { atMost, type BenchResult, info, quantile, sampled } from "./report.ts";
import { isolatedEnv, serverCommand } from "../harness.ts";

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

/** `mero-mcp watch <context>` as a monitor runs it: each stdout line with when it arrived. */
async function startWatch(nodeUrl: string, contextId: string) {
  const { command, args } = serverCommand();
  const child = new Deno.Command(command, {
    args: [...args, "watch", contextId],
    env: await isolatedEnv({ CALIMERO_NODE_URL: nodeUrl }),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const arrived: number[] = [];
  void (async () => {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      for (const _ of chunk.matchAll(/\n/g)) arrived.push(performance.now());
    }
  })();
  let read = 0;
  return {
    /** When the next line arrived; rejects after `ms`. */
    async nextLine(ms: number): Promise<number> {
      const deadline = Date.now() + ms;
      while (read >= arrived.length) {
        if (Date.now() > deadline) throw new Error("no watch line");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return arrived[read++];
    },
    async close() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** Counts what arrives until nothing more comes for `quietMs`. */
async function countUntilQuiet(next: (ms: number) => Promise<number>, quietMs: number) {
  let count = 0;
  for (;;) {
    try {
      await next(quietMs);
      count++;
    } catch {
      return count;
    }
  }
}

/** Runs B10. */
export async function b10(): Promise<BenchResult> {
  const fixture = await kvFixture({ contexts: 1, env: { CALIMERO_MCP_CHANNEL: "selected" } });
  const { server, sim, contexts: [contextId] } = fixture;
  const watch = await startWatch(sim.url, contextId);
  try {
    // The channel pins what select_app bound; the watch follows once its stream has subscribed (a second session).
    const subscribed = () =>
      [...sim.state.events!.sessions.values()].filter((s) => s.subscriptions.has(contextId)).length;
    for (let i = 0; i < 200 && subscribed() < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const latencies: number[] = [];
    const watchLatencies: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const emitted = performance.now();
      inserted(contextId, `k${i}`);
      const [at, line] = await Promise.all([
        server.nextNotification(METHOD, 5_000),
        watch.nextLine(5_000),
      ]);
      latencies.push(at - emitted);
      watchLatencies.push(line - emitted);
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    }
    for (let i = 0; i < BURST; i++) inserted(contextId, `b${i}`);
    const [notifications, lines] = await Promise.all([
      countUntilQuiet((ms) => server.nextNotification(METHOD, ms), 8_000),
      countUntilQuiet((ms) => watch.nextLine(ms), 8_000),
    ]);
    return {
      id: "B10",
      title: "Channel and watch: a peer's event → notifications/claude/channel, and → a watch line",
      metrics: [
        sampled(
          atMost(
            "latency p50 (first event of a quiet context)",
            quantile(latencies, 0.5),
            "ms",
            1_000,
            "≤ 1 s",
          ),
          latencies,
        ),
        atMost("latency p99", quantile(latencies, 0.99), "ms", 1_000, "≤ 1 s"),
        atMost(
          `notifications for a burst of ${BURST} events`,
          notifications,
          "",
          5,
          "a handful (≤ 5)",
        ),
        sampled(
          atMost(
            "watch: latency p50 (a peer's event → the stdout line)",
            quantile(watchLatencies, 0.5),
            "ms",
            1_000,
            "≤ 1 s",
          ),
          watchLatencies,
        ),
        atMost("watch: latency p99", quantile(watchLatencies, 0.99), "ms", 1_000, "≤ 1 s"),
        atMost(`watch: lines for a burst of ${BURST} events`, lines, "", 5, "a handful (≤ 5)"),
        info("rounds", ROUNDS),
      ],
      notes: [
        "The simulated node emits into its event stream; the clock stops when the notification's line arrives at the client.",
        "By design a quiet context's first event waits 250 ms for the rest of its burst; later ones wait out the 3 s interval.",
      ],
    };
  } finally {
    await watch.close();
    await fixture.close();
  }
}
