// B6: memory under a long run. Blocks of 1,000 sequential generated-tool calls after a short warm-up; the
// server's resident set after each. The first block is the target as written; the last tells a leak (steady
// growth) from the V8 heap settling.

import { kvFixture } from "./fixture.ts";
import { HAS_PROC, mib, rssBytes } from "./proc.ts";
import { atMost, type BenchResult, info } from "./report.ts";
import { callTool } from "./stdio_client.ts";

const WARM_UP = 200;
const CALLS = 1000;
const BLOCKS = 5;

/** Runs B6. */
export async function b6(): Promise<BenchResult> {
  if (!HAS_PROC) {
    return {
      id: "B6",
      title: `${CALLS} sequential calls: RSS growth`,
      metrics: [info("RSS growth", "skipped (no /proc on this OS)")],
      notes: [],
    };
  }
  const fixture = await kvFixture({ contexts: 1 });
  const { server, handles: [handle] } = fixture;
  try {
    let n = 0;
    const calls = async (count: number) => {
      for (let i = 0; i < count; i++) {
        n++;
        await callTool(server, n % 2 ? "kv_store_set" : "kv_store_get", {
          app_handle: handle,
          key: "k",
          ...(n % 2 ? { value: `value-${n}` } : {}),
        });
      }
    };
    await calls(WARM_UP);
    const rss = [rssBytes(server.pid)!];
    for (let block = 0; block < BLOCKS; block++) {
      await calls(CALLS);
      rss.push(rssBytes(server.pid)!);
    }
    const growth = (block: number) => mib(rss[block + 1] - rss[block]);
    return {
      id: "B6",
      title: `${CALLS} sequential calls: RSS growth`,
      metrics: [
        info("RSS after warm-up", mib(rss[0]), "MiB"),
        // The specification's figures (docs: quality.md B6): 10 MiB over the first 1,000 calls, then 1 MiB.
        atMost(`RSS growth over the first ${CALLS} calls`, growth(0), "MiB", 10, "≤ 10 MiB"),
        info(
          "RSS after each further block",
          rss.slice(2).map((r) => Math.round(mib(r))).join(", "),
          "MiB",
        ),
        atMost(
          `RSS growth over calls ${(BLOCKS - 1) * CALLS + 1}–${BLOCKS * CALLS} (settled)`,
          growth(BLOCKS - 1),
          "MiB",
          1,
          "≤ 1 MiB (no leak)",
        ),
      ],
      notes: [
        `Alternating kv_store_set / kv_store_get with an app_handle (the sim keeps one key), ${WARM_UP} warm-up calls, then ${BLOCKS} blocks of ${CALLS}; VmRSS of the server process after each block. Garbage collection timing moves RSS by a few MiB either way.`,
        "Targets: the specification's (≤ 10 MiB over the first 1,000 calls, ≤ 1 MiB over calls 4,001–5,000); this bench once held both at 5 MB, which was looser than the spec for the settled block and tighter for the first.",
        "The JS heap itself does not grow: with the server code on one thread (inline_main.ts, --expose-gc) heapUsed after a full GC stays at ~16 MiB over 5,000 calls while heapTotal grows from ~26 to ~70 MiB: the growth is V8 sizing its heap to the allocation rate, plus allocator retention.",
      ],
    };
  } finally {
    await fixture.close();
  }
}
