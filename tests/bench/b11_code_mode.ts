// B11: code mode. Three tasks on the simulated node, each done three ways — one tool call per step, call_many
// batches (at most 32 calls each), and one run_script — measuring what the model would see: the bytes it writes
// (each request's arguments) and reads (each result's text), its round trips, and the wall time. Then the cost of
// one call inside a script against one direct tool call.

import { kvFixture } from "./fixture.ts";
import { atMost, type BenchResult, info, median, type Metric } from "./report.ts";
import { type Answer, callTool, resultJson, type StdioServer } from "./stdio_client.ts";
import { rpc } from "../sim_node/testing.ts";

const N = 100;
const PREFIXED = 30;
const OVERHEAD_ROUNDS = 5;

/** What one way of doing a task cost the model. */
interface Cost {
  bytesIn: number;
  bytesOut: number;
  trips: number;
  ms: number;
}

/** Calls a tool, counting what the model writes and reads. */
function meter() {
  const cost: Cost = { bytesIn: 0, bytesOut: 0, trips: 0, ms: 0 };
  const started = performance.now();
  return {
    async tool(server: StdioServer, name: string, args: Record<string, unknown>): Promise<Answer> {
      cost.bytesIn += new TextEncoder().encode(JSON.stringify({ name, arguments: args })).length;
      const answer = await callTool(server, name, args);
      const content = answer.message.result.content as { type: string; text?: string }[];
      cost.bytesOut += content.reduce(
        (sum, c) => sum + new TextEncoder().encode(c.text ?? "").length,
        0,
      );
      cost.trips++;
      return answer;
    },
    done(): Cost {
      cost.ms = performance.now() - started;
      return cost;
    },
  };
}

const chunk = <T>(items: T[], size: number) =>
  Array.from(
    { length: Math.ceil(items.length / size) },
    (_, i) => items.slice(i * size, i * size + size),
  );

/** Runs B11. */
export async function b11(): Promise<BenchResult> {
  const fixture = await kvFixture({ contexts: 2 });
  const { server, sim, contexts: [a, b], handles: [handleA, handleB] } = fixture;
  try {
    for (let i = 0; i < N; i++) {
      const key = i < PREFIXED ? `p/${i}` : `k${i}`;
      await rpc(sim, a, "set", { key, value: String(i) });
    }
    const keys = Array.from({ length: N }, (_, i) => (i < PREFIXED ? `p/${i}` : `k${i}`));
    const expectedSum = (N * (N - 1)) / 2;
    const rows: { task: string; way: string; cost: Cost }[] = [];

    // Task 1: read N keys and sum them.
    {
      const m = meter();
      let sum = 0;
      for (const key of keys) {
        sum += Number(
          resultJson(await m.tool(server, "kv_store_get", { app_handle: handleA, key })),
        );
      }
      if (sum !== expectedSum) throw new Error(`task 1 (tools): ${sum}`);
      rows.push({ task: "read 100 keys, sum", way: "tool calls", cost: m.done() });
    }
    {
      const m = meter();
      let sum = 0;
      for (const part of chunk(keys, 32)) {
        const batch = resultJson(
          await m.tool(server, "call_many", {
            calls: part.map((key) => ({ method: "get", app_handle: handleA, args: { key } })),
          }),
        );
        for (const r of batch.results as { result: string }[]) sum += Number(r.result);
      }
      if (sum !== expectedSum) throw new Error(`task 1 (call_many): ${sum}`);
      rows.push({ task: "read 100 keys, sum", way: "call_many", cost: m.done() });
    }
    {
      const m = meter();
      const result = resultJson(
        await m.tool(server, "run_script", {
          code: `const keys = ${JSON.stringify(keys)};
let sum = 0;
for (const key of keys) sum += Number(await calimero.kv_store.get({ key }, { context: "${a}" }));
return sum;`,
        }),
      );
      if (result.value !== expectedSum) {
        throw new Error(`task 1 (script): ${JSON.stringify(result)}`);
      }
      rows.push({ task: "read 100 keys, sum", way: "run_script", cost: m.done() });
    }

    // Task 2: copy the entries whose key starts with "p/" from context a to context b.
    for (const way of ["tool calls", "call_many", "run_script"]) {
      const m = meter();
      if (way === "run_script") {
        await m.tool(server, "run_script", {
          code:
            `const entries = await calimero.kv_store.entries({}, { context: "${a}" }) as Record<string, string>;
let copied = 0;
for (const [key, value] of Object.entries(entries)) {
  if (!key.startsWith("p/")) continue;
  await calimero.kv_store.set({ key, value }, { context: "${b}" });
  copied++;
}
return copied;`,
        });
      } else {
        const entries = resultJson(
          await m.tool(server, "kv_store_entries", { app_handle: handleA }),
        ) as Record<string, string>;
        const wanted = Object.entries(entries).filter(([key]) => key.startsWith("p/"));
        if (way === "tool calls") {
          for (const [key, value] of wanted) {
            await m.tool(server, "kv_store_set", { app_handle: handleB, key, value });
          }
        } else {
          for (const part of chunk(wanted, 32)) {
            await m.tool(server, "call_many", {
              calls: part.map(([key, value]) => ({
                method: "set",
                app_handle: handleB,
                args: { key, value },
              })),
            });
          }
        }
      }
      rows.push({ task: "copy 30 of 100 entries", way, cost: m.done() });
    }

    // Task 3: wait for a peer's write in context a and answer it in context b. The agent holds a cursor from
    // before (read here, not counted), as it would after its last look at the context.
    for (const way of ["tool calls", "call_many", "run_script"]) {
      let cursor: string | undefined;
      for (let more = true; more;) {
        const read = resultJson(
          await callTool(server, "wait_for_events", {
            context: a,
            timeout_s: 0,
            ...(cursor ? { after: cursor } : {}),
          }),
        );
        cursor = read.cursor as string;
        more = read.more === true;
      }
      const m = meter();
      const peer = setTimeout(
        () => void rpc(sim, a, "set", { key: `ask-${way}`, value: "ping" }),
        150,
      );
      const wait = { context: a, after: cursor, events: ["Inserted"], timeout_s: 10 };
      let asked: string | undefined;
      if (way === "run_script") {
        const result = resultJson(
          await m.tool(server, "run_script", {
            code: `const got = await calimero.waitForEvents(${JSON.stringify(wait)});
const ask = (got.events as any[])[0];
await calimero.kv_store.set({ key: "answer", value: "pong to " + ask.payload.key }, { context: "${b}" });
return ask.payload.key;`,
          }),
        );
        asked = result.value as string;
      } else {
        const got = resultJson(await m.tool(server, "wait_for_events", wait));
        asked = (got.events as { payload?: { key: string } }[])[0]?.payload?.key;
        const set = { key: "answer", value: `pong to ${asked}` };
        if (way === "tool calls") {
          await m.tool(server, "kv_store_set", { app_handle: handleB, ...set });
        } else {
          await m.tool(server, "call_many", {
            calls: [{ method: "set", app_handle: handleB, args: set }],
          });
        }
      }
      clearTimeout(peer);
      if (asked !== `ask-${way}`) throw new Error(`task 3 (${way}) answered ${asked}`);
      rows.push({ task: "wait for a peer, answer", way, cost: m.done() });
    }

    // Per call: a direct tool call, against one call inside a script (the script's own start-up taken out).
    const direct: number[] = [];
    for (let i = 0; i < 50; i++) {
      direct.push((await callTool(server, "kv_store_get", { app_handle: handleA, key: "k50" })).ms);
    }
    const scriptPerCall: number[] = [];
    const emptyScript: number[] = [];
    for (let r = 0; r < OVERHEAD_ROUNDS; r++) {
      const empty = await callTool(server, "run_script", { code: "return 1;" });
      emptyScript.push(empty.ms);
      const full = await callTool(server, "run_script", {
        code:
          `for (let i = 0; i < ${N}; i++) await calimero.kv_store.get({ key: "k50" }, { context: "${a}" });
return ${N};`,
      });
      scriptPerCall.push((full.ms - empty.ms) / N);
    }
    const perCallRatio = median(scriptPerCall) / median(direct);

    const tools100 = rows.find((r) => r.task.startsWith("read") && r.way === "tool calls")!.cost;
    const script100 = rows.find((r) => r.task.startsWith("read") && r.way === "run_script")!.cost;
    const bytesRatio = (tools100.bytesIn + tools100.bytesOut) /
      (script100.bytesIn + script100.bytesOut);
    const metrics: Metric[] = [
      ...rows.map((r) =>
        info(
          `${r.task} — ${r.way}`,
          `${
            r.cost.bytesIn + r.cost.bytesOut
          } B (${r.cost.bytesIn} in, ${r.cost.bytesOut} out), ${r.cost.trips} trip${
            r.cost.trips === 1 ? "" : "s"
          }, ${Math.round(r.cost.ms)} ms`,
        )
      ),
      {
        name: "100-call task: model-visible bytes, tool calls ÷ run_script",
        value: Math.round(bytesRatio * 10) / 10,
        unit: "×",
        target: "≥ 10 ×",
        pass: bytesRatio >= 10,
      },
      atMost("100-call task: run_script round trips", script100.trips, "", 1, "1"),
      info("direct tool call (kv_store_get) p50", median(direct), "ms"),
      info("one call inside a script (start-up taken out), median", median(scriptPerCall), "ms"),
      info("empty script (runner start-up and answer), median", median(emptyScript), "ms"),
      atMost("per-call cost: script ÷ direct call", perCallRatio, "×", 1.5, "≤ 1.5 ×"),
    ];
    return {
      id: "B11",
      title: "Code mode: tool calls vs call_many vs run_script",
      metrics,
      notes: [
        "Bytes in: each request's name and arguments as JSON; bytes out: each result's text. A model reads and writes these.",
        "The direct call checks the app and its contexts on every call; a script reuses those checks for up to 5 s (call_many reuses them within a batch).",
        "The empty script is one runner process started, its script run and its answer read: paid once per script.",
      ],
    };
  } finally {
    await fixture.close();
  }
}
