// B2: the round trip of a generated-tool call against a direct `POST /jsonrpc` to the same node, and the time
// our own code adds once the call's three node requests (two concurrent checks, then execute) are taken out.

import type { FetchTiming } from "./fetch_timer.ts";
import { kvFixture, TIMED_MAIN } from "./fixture.ts";
import { atMost, type BenchResult, info, median, quantile } from "./report.ts";
import { callTool } from "./stdio_client.ts";
import { ROOT } from "../harness.ts";

const CALLS = 1000;
const WARM_UP = 100;
const BLOCK = 100;

/** The timer's stderr lines, parsed, in start order. */
export function fetchTimings(stderr: string): FetchTiming[] {
  const out: FetchTiming[] = [];
  for (const line of stderr.split("\n")) {
    if (line.startsWith("[bench-fetch] ")) out.push(...JSON.parse(line.slice(14)));
  }
  return out.sort((a, b) => a[1] - b[1]);
}

/**
 * The node time of each tool call, in order: the span of its two concurrent checks plus its execute.
 * Calls are recognised as (GET application, GET contexts for it) in either order followed by POST /jsonrpc;
 * anything else (the catalog's own reads, a poll) is skipped.
 */
export function nodeTimePerCall(timings: FetchTiming[]): number[] {
  const isCheck = (t: FetchTiming) =>
    /^GET \/admin-api\/applications\/[^/]+$/.test(t[0]) ||
    t[0].startsWith("GET /admin-api/contexts/for-application/");
  const out: number[] = [];
  for (let i = 0; i + 2 < timings.length; i++) {
    const [a, b, c] = [timings[i], timings[i + 1], timings[i + 2]];
    if (isCheck(a) && isCheck(b) && a[0] !== b[0] && c[0] === "POST /jsonrpc") {
      out.push(Math.max(a[2], b[2]) - Math.min(a[1], b[1]) + (c[2] - c[1]));
      i += 2;
    }
  }
  return out;
}

/** Waits until `predicate` holds, checking every 50 ms, for at most `ms`; false when it never did. */
export async function until(predicate: () => boolean, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!predicate()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** The direct client in a separate process (direct_client.ts): `run(n)` resolves with n round trips. */
function directProcess(url: string, contextId: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--allow-net", "tests/bench/direct_client.ts", url, contextId],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async run(count: number): Promise<number[]> {
      await writer.write(new TextEncoder().encode(`${count}\n`));
      while (!buffer.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) throw new Error("the direct client exited");
        buffer += value;
      }
      const newline = buffer.indexOf("\n");
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      return JSON.parse(line);
    },
    async close() {
      await writer.close();
      await child.status;
      await lines.cancel().catch(() => {});
    },
  };
}

/** Runs B2. */
export async function b2(): Promise<BenchResult> {
  const fixture = await kvFixture({ contexts: 1, entry: TIMED_MAIN });
  const { sim, server, contexts: [contextId], handles: [handle] } = fixture;
  try {
    await callTool(server, "kv_store_set", { app_handle: handle, key: "k", value: "bench" });
    const args = { app_handle: handle, key: "k" };
    let rpcId = 0;
    const direct = async (): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${sim.url}/jsonrpc`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: ++rpcId,
          method: "execute",
          params: { contextId, method: "get", argsJson: { key: "k" } },
        }),
      });
      const body = JSON.parse(await response.text());
      const elapsed = performance.now() - started;
      if (body.result?.output !== "bench") throw new Error(`direct call: ${JSON.stringify(body)}`);
      return elapsed;
    };
    const viaTool = async (): Promise<number> => {
      const answer = await callTool(server, "kv_store_get", args);
      if (answer.message.result.content[0].text !== '"bench"') {
        throw new Error(`kv_store_get answered ${JSON.stringify(answer.message.result)}`);
      }
      return answer.ms;
    };

    const other = directProcess(sim.url, contextId);
    for (let i = 0; i < WARM_UP; i++) {
      await viaTool();
      await direct();
    }
    await other.run(WARM_UP);
    // Interleaved blocks, so load from elsewhere on the machine falls on all series alike.
    const tool: number[] = [];
    const plain: number[] = [];
    const apart: number[] = [];
    for (let done = 0; done < CALLS; done += BLOCK) {
      for (let i = 0; i < BLOCK; i++) tool.push(await viaTool());
      for (let i = 0; i < BLOCK; i++) plain.push(await direct());
      apart.push(...await other.run(BLOCK));
    }
    await other.close();

    const expected = WARM_UP + 1 + CALLS;
    await until(() => nodeTimePerCall(fetchTimings(server.stderr())).length >= expected, 5000);
    const node = nodeTimePerCall(fetchTimings(server.stderr())).slice(-CALLS);
    const own = node.length === CALLS ? tool.map((total, i) => total - node[i]) : [];
    const directP50 = median(apart);
    const toolP50 = median(tool);
    const notes = [
      `${CALLS} kv_store_get calls (2025-11-25 era, bare stdio client, app_handle from select_app) and ${CALLS} direct POST /jsonrpc "get" from a separate Deno process (direct_client.ts; the server, too, reaches the node from another process), plus ${CALLS} from inside the bench process that hosts the node (no cross-process wake-up: a lower bound), interleaved in blocks of ${BLOCK} after ${WARM_UP} warm-up rounds.`,
      "A generated call makes 2 sequential node round trips (checks ∥, then execute; apps.md §5), so its ratio to one direct request is at least 2 before any of our code runs: the ≤ 2 × target cannot be met with the checks the spec requires; `our code` is the figure that isolates the server.",
      "Node time per call = span of the two concurrent checks (GET application, GET contexts) + the execute, timed around fetch inside the server worker (tests/bench/fetch_timer.ts, body read included); our code = round trip − node time.",
    ];
    if (own.length === 0) {
      notes.push(`node timings incomplete: matched ${node.length} of ${CALLS} calls`);
    }
    return {
      id: "B2",
      title: "generated-tool call overhead",
      metrics: [
        info("direct POST /jsonrpc p50 (separate process)", directP50, "ms"),
        info("direct POST /jsonrpc p99 (separate process)", quantile(apart, 0.99), "ms"),
        info("direct POST /jsonrpc p50 (inside the node's process)", median(plain), "ms"),
        info("tools/call round trip p50", toolP50, "ms"),
        info("tools/call round trip p99", quantile(tool, 0.99), "ms"),
        atMost("ratio p50 tools/call ÷ direct", toolP50 / directP50, "×", 2, "≤ 2 ×"),
        info("node time per call p50 (3 requests, 2 round trips)", median(node), "ms"),
        info(
          "ratio p50 node time ÷ direct (the floor of the ratio above)",
          median(node) / directP50,
          "×",
        ),
        atMost("our code per call p50", median(own), "ms", 1, "≤ 1 ms"),
        info("our code per call p99", quantile(own, 0.99), "ms"),
      ],
      notes,
    };
  } finally {
    await fixture.close();
  }
}
