// `deno run -A tests/bench/profile.ts [calls]`: runs B2's call loop against the server code on the main
// thread (inline_main.ts) under `--cpu-prof`, then prints where the time went: self time by function and
// inclusive time of the project's own functions. `… profile.ts poll [seconds]` profiles B4 instead: an idle server
// polling every second, per poll. A diagnostic for the integrator, not part of the bench.

import { kvFixture } from "./fixture.ts";
import { print } from "./report.ts";
import { callTool } from "./stdio_client.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^.*registry\.npmjs\.org\//, "npm:").replace(
    /^file:\/\/.*?\/(src|tests)\//,
    "$1/",
  );
  return `${functionName || "(anonymous)"} ${where}${url ? `:${lineNumber + 1}` : ""}`;
}

/** Self and inclusive milliseconds per function label. */
export function summarise(
  profile: CpuProfile,
): { self: Map<string, number>; inclusive: Map<string, number>; busy: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const leaf = byId.get(id)!;
    const leafLabel = label(leaf);
    self.set(leafLabel, (self.get(leafLabel) ?? 0) + ms);
    if (leaf.callFrame.functionName === "(idle)") return;
    busy += ms;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
    }
  });
  return { self, inclusive, busy };
}

function top(map: Map<string, number>, n: number, filter: (k: string) => boolean, per: number) {
  return [...map].filter(([k]) => filter(k)).sort((a, b) => b[1] - a[1]).slice(0, n)
    .map(([k, v]) =>
      `${v.toFixed(1).padStart(8)} ms ${(v / per * 1000).toFixed(1).padStart(7)} µs/call  ${k}`
    );
}

if (import.meta.main) {
  const polling = Deno.args[0] === "poll";
  const calls = Number(Deno.args[polling ? 1 : 0] ?? (polling ? 20 : 3000));
  const dir = await Deno.makeTempDir({ prefix: "mero-mcp-prof-" });
  const fixture = await kvFixture({
    contexts: 1,
    entry: "tests/bench/inline_main.ts",
    flags: ["--cpu-prof", `--cpu-prof-dir=${dir}`],
    env: polling ? { CALIMERO_MCP_POLL_SECONDS: "1" } : {},
  });
  const handle = fixture.handles[0];
  if (polling) {
    // `calls` seconds of idle polling: one poll a second.
    await new Promise((resolve) => setTimeout(resolve, calls * 1000));
  } else {
    await callTool(fixture.server, "kv_store_set", { app_handle: handle, key: "k", value: "v" });
    for (let i = 0; i < calls; i++) {
      await callTool(fixture.server, "kv_store_get", { app_handle: handle, key: "k" });
    }
  }
  await fixture.close();
  for (const entry of Deno.readDirSync(dir)) {
    const { self, inclusive, busy } = summarise(
      JSON.parse(Deno.readTextFileSync(`${dir}/${entry.name}`)),
    );
    print(
      `${calls} calls; busy ${busy.toFixed(0)} ms (${
        (busy / calls * 1000).toFixed(0)
      } µs per call, set-up included)`,
    );
    print("\nself time, top 30:");
    print(top(self, 30, (k) => !k.startsWith("(idle)"), calls).join("\n"));
    print("\ninclusive time of project code (src/), top 30:");
    print(top(inclusive, 30, (k) => / src\//.test(k), calls).join("\n"));
    print("\ninclusive time of the SDK, top 15:");
    print(top(inclusive, 15, (k) => k.includes("npm:@modelcontextprotocol"), calls).join("\n"));
  }
  await Deno.remove(dir, { recursive: true });
}
