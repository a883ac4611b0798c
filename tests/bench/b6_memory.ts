// B6: memory under a long run. 1,000 sequential generated-tool calls after a warm-up; the server's resident
// set before and after, plus a second 1,000 to tell steady growth (a leak) from warm-up.

import { kvFixture } from "./fixture.ts";
import { HAS_PROC, mib, rssBytes } from "./proc.ts";
import { atMost, type BenchResult, info } from "./report.ts";
import { callTool } from "./stdio_client.ts";

const WARM_UP = 200;
const CALLS = 1000;

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
    const before = rssBytes(server.pid)!;
    await calls(CALLS);
    const after = rssBytes(server.pid)!;
    await calls(CALLS);
    const again = rssBytes(server.pid)!;
    return {
      id: "B6",
      title: `${CALLS} sequential calls: RSS growth`,
      metrics: [
        info("RSS after warm-up", mib(before), "MiB"),
        atMost(`RSS growth over ${CALLS} calls`, mib(after - before), "MiB", 5, "≤ 5 MB"),
        info(`RSS growth over the next ${CALLS}`, mib(again - after), "MiB"),
      ],
      notes: [
        `Alternating kv_store_set / kv_store_get with an app_handle (the sim keeps one key), ${WARM_UP} warm-up calls first; VmRSS of the server process. Garbage collection timing moves RSS by a few MiB either way; the second ${CALLS} show whether growth continues.`,
      ],
    };
  } finally {
    await fixture.close();
  }
}
