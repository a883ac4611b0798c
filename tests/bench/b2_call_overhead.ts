// B2: the round trip of a generated-tool call against a direct `POST /jsonrpc` to the same node, and the time
// our own code adds once the call's three node requests (two concurrent checks, then execute) are taken out.

import type { FetchTiming } from "./fetch_timer.ts";
import { kvFixture, TIMED_MAIN } from "./fixture.ts";
import { atMost, type BenchResult, info, median, quantile } from "./report.ts";
import { callTool } from "./stdio_client.ts";

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

    for (let i = 0; i < WARM_UP; i++) {
      await viaTool();
      await direct();
    }
    // Interleaved blocks, so load from elsewhere on the machine falls on both series alike.
    const tool: number[] = [];
    const plain: number[] = [];
    for (let done = 0; done < CALLS; done += BLOCK) {
      for (let i = 0; i < BLOCK; i++) tool.push(await viaTool());
      for (let i = 0; i < BLOCK; i++) plain.push(await direct());
    }

    const expected = WARM_UP + 1 + CALLS;
    await until(() => nodeTimePerCall(fetchTimings(server.stderr())).length >= expected, 5000);
    const node = nodeTimePerCall(fetchTimings(server.stderr())).slice(-CALLS);
    const own = node.length === CALLS ? tool.map((total, i) => total - node[i]) : [];
    const directP50 = median(plain);
    const toolP50 = median(tool);
    const notes = [
      `${CALLS} kv_store_get calls (2025-11-25 era, bare stdio client, app_handle from select_app) and ${CALLS} direct POST /jsonrpc "get" from the bench process, interleaved in blocks of ${BLOCK} after ${WARM_UP} warm-up rounds.`,
      "Node time per call = span of the two concurrent checks (GET application, GET contexts) + the execute, timed around fetch inside the server worker (tests/bench/fetch_timer.ts, body read included); our code = round trip − node time.",
    ];
    if (own.length === 0) {
      notes.push(`node timings incomplete: matched ${node.length} of ${CALLS} calls`);
    }
    return {
      id: "B2",
      title: "generated-tool call overhead",
      metrics: [
        info("direct POST /jsonrpc p50", directP50, "ms"),
        info("direct POST /jsonrpc p99", quantile(plain, 0.99), "ms"),
        info("tools/call round trip p50", toolP50, "ms"),
        info("tools/call round trip p99", quantile(tool, 0.99), "ms"),
        atMost("ratio p50 tools/call ÷ direct", toolP50 / directP50, "×", 2, "≤ 2 ×"),
        info("node time per call p50 (3 requests)", median(node), "ms"),
        atMost("our code per call p50", median(own), "ms", 1, "≤ 1 ms"),
        info("our code per call p99", quantile(own, 0.99), "ms"),
      ],
      notes,
    };
  } finally {
    await fixture.close();
  }
}
