// `deno run -A tools/cold_start.ts [--runs N] [--product "<command>"] [--baseline "<command>"]`: cold start of the
// product and of a minimal SDK server, spawn → `initialize` answered, spawned alternately. CI's `binary` job runs it
// on the compiled executables and appends the table to its summary ($GITHUB_STEP_SUMMARY); anywhere else the
// defaults run both from source, so the script itself is tested here (tools/cold_start_test.ts).

import { SERVER_RUN_ARGS } from "./run_args.ts";
import { writeStdout } from "../src/cli/report.ts";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "cold-start", version: "1.0.0" },
  },
}) + "\n";

/** The two commands timed, and how often. */
export interface ColdStartOptions {
  runs: number;
  product: string[];
  baseline: string[];
}

/** The defaults: both servers from source, with the server permission set. */
export const FROM_SOURCE: ColdStartOptions = {
  runs: 10,
  product: [Deno.execPath(), ...SERVER_RUN_ARGS, "main.ts"],
  baseline: [Deno.execPath(), "run", "-P=server", "--quiet", "tests/bench/baseline_server.ts"],
};

/** Parses `--runs`, `--product` and `--baseline` (commands as one whitespace-separated string each). */
export function parseColdStartArgs(args: string[]): ColdStartOptions {
  const options = { ...FROM_SOURCE };
  for (let i = 0; i < args.length; i++) {
    if (!["--runs", "--product", "--baseline"].includes(args[i])) {
      throw new Error(
        `Unknown argument "${args[i]}". Use --runs N, --product "…", --baseline "…".`,
      );
    }
    const value = args[i + 1];
    if (value === undefined) throw new Error(`${args[i]} needs a value.`);
    if (args[i] === "--runs") options.runs = Math.max(1, Number(value) || 1);
    else if (args[i] === "--product") options.product = value.split(/\s+/).filter(Boolean);
    else options.baseline = value.split(/\s+/).filter(Boolean);
    i++;
  }
  return options;
}

/**
 * Deno's own cache, kept across the fresh homes: from source, a home without it would time a full recompile.
 * (A compiled executable carries its code and reads none.)
 */
const DENO_DIR = Deno.env.get("DENO_DIR") ?? JSON.parse(
  new TextDecoder().decode(
    (await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
      .output())
      .stdout,
  ),
).denoDir as string;

/** Spawns `command` in a fresh home with no node to reach (no catalog wait) and times it to its first answer. */
async function once(command: string[]): Promise<number> {
  const home = await Deno.makeTempDir({ prefix: "mero-mcp-cold-" });
  const dead = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (dead.addr as Deno.NetAddr).port;
  dead.close();
  const started = performance.now();
  const child = new Deno.Command(command[0], {
    args: command.slice(1),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: {
      DENO_DIR,
      HOME: home,
      CALIMERO_NODE_URL: `http://127.0.0.1:${port}`,
      CALIMERO_MCP_STATE_DIR: `${home}/state`,
      CALIMERO_NODE_HOME: `${home}/calimero`,
      CALIMERO_MCP_PROBE_PORTS: String(port),
    },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(INITIALIZE));
  const reader = child.stdout.getReader();
  let elapsed = NaN;
  let seen = "";
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
    if (seen.includes("\n")) {
      elapsed = performance.now() - started;
      break;
    }
  }
  reader.releaseLock();
  await writer.close().catch(() => {});
  await child.stdout.cancel().catch(() => {});
  await child.status;
  await Deno.remove(home, { recursive: true }).catch(() => {});
  if (!seen.includes('"result"')) throw new Error(`${command.join(" ")} did not answer initialize`);
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs the measurement: one discarded start of each, then `runs` alternating starts; p50s and their ratio. */
export async function measureColdStart(options: ColdStartOptions) {
  await once(options.baseline);
  await once(options.product);
  const baseline: number[] = [];
  const product: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    baseline.push(await once(options.baseline));
    product.push(await once(options.product));
  }
  return { baseline: median(baseline), product: median(product), runs: options.runs };
}

/** The result as the Markdown table the job summary shows. */
export function coldStartTable(
  result: { baseline: number; product: number; runs: number },
  options: ColdStartOptions,
): string {
  const ratio = result.product / result.baseline;
  return [
    `### Cold start: spawn → initialize answered (p50 of ${result.runs}, no node to reach)`,
    "",
    "| server | command | p50 |",
    "| --- | --- | --- |",
    `| minimal SDK server | \`${options.baseline.join(" ")}\` | ${result.baseline.toFixed(1)} ms |`,
    `| mero-mcp | \`${options.product.join(" ")}\` | ${result.product.toFixed(1)} ms |`,
    "",
    `Ratio mero-mcp ÷ minimal: **${ratio.toFixed(2)} ×** (target ≤ 1.5 ×: ${
      ratio <= 1.5 ? "pass" : "MISS"
    }).`,
    "",
  ].join("\n");
}

if (import.meta.main) {
  const options = parseColdStartArgs(Deno.args);
  const table = coldStartTable(await measureColdStart(options), options);
  writeStdout(table + "\n");
  const summary = Deno.env.get("GITHUB_STEP_SUMMARY");
  if (summary) await Deno.writeTextFile(summary, table + "\n", { append: true });
}
