// `deno task bench [--only B2[,B5…]] [--json <file>] [--md <file>]`: runs the benchmarks B1–B11
// against the simulated node on loopback and prints one table each. Benchmarks measure; they never fail.

import { b1 } from "./b1_cold_start.ts";
import { b2 } from "./b2_call_overhead.ts";
import { b3 } from "./b3_scale.ts";
import { b4 } from "./b4_idle_poll.ts";
import { b5 } from "./b5_call_many.ts";
import { b6 } from "./b6_memory.ts";
import { b7 } from "./b7_surface.ts";
import { b8 } from "./b8_events.ts";
import { b9 } from "./b9_results.ts";
import { b10 } from "./b10_channel.ts";
import { b11 } from "./b11_code_mode.ts";
import { describeMachine, machineMarkdown } from "./machine.ts";
import { type BenchResult, markdownSection, print, textTable } from "./report.ts";

/** Every benchmark by id, in run order. */
export const BENCHMARKS: Record<string, () => Promise<BenchResult>> = {
  B1: b1,
  B2: b2,
  B3: b3,
  B4: b4,
  B5: b5,
  B6: b6,
  B7: b7,
  B8: b8,
  B9: b9,
  B10: b10,
  B11: b11,
};

/** Parsed command line. */
export interface BenchArgs {
  only: string[];
  json: string | null;
  md: string | null;
  /** A markdown file (docs/benchmarks.md) whose block between the bench markers gets this run's verdicts. */
  readme: string | null;
  /** A recorded run (`--json` output) to compare this one with. */
  compare: string | null;
}

/** Parses `--only`, `--json`, `--md`, `--readme` and `--compare` (each `--flag value` or `--flag=value`); throws on anything else. */
export function parseArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = { only: [], json: null, md: null, readme: null, compare: null };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new Error(`${flag} needs a value.`);
      return v;
    };
    if (flag === "--only") {
      args.only.push(...value().split(",").map((id) => id.trim().toUpperCase()).filter(Boolean));
    } else if (flag === "--json") args.json = value();
    else if (flag === "--md") args.md = value();
    else if (flag === "--readme") args.readme = value();
    else if (flag === "--compare") args.compare = value();
    else {
      throw new Error(
        `Unknown argument "${
          argv[i]
        }". Use --only B1[,B2…], --json <file>, --md <file>, --readme <file>, --compare <json>.`,
      );
    }
  }
  const unknown = args.only.filter((id) => !(id in BENCHMARKS));
  if (unknown.length) {
    throw new Error(
      `Unknown benchmark ${unknown.join(", ")}; known: ${Object.keys(BENCHMARKS).join(", ")}.`,
    );
  }
  return args;
}

/** The Markdown report: machine, summary of verdicts, then one section per benchmark. */
/** Where the bench block (docs/benchmarks.md) starts and ends (the lines between are replaced by `--readme`). */
export const README_MARKERS = ["<!-- bench:start -->", "<!-- bench:end -->"] as const;

/** The verdicts as a markdown table, one row per judged metric. */
function verdictTable(results: BenchResult[]): string[] {
  const judged = results.flatMap((r) =>
    r.metrics.filter((m) => m.pass !== undefined).map((m) => ({ id: r.id, m }))
  );
  return [
    "| benchmark | metric | measured | target | result |",
    "| --- | --- | --- | --- | --- |",
    ...judged.map(({ id, m }) =>
      `| ${id} | ${m.name} | ${m.value}${m.unit ? ` ${m.unit}` : ""} | ${m.target} | ${
        m.pass ? "pass" : "**MISS**"
      } |`
    ),
  ];
}

/** `text` with its bench block replaced by this run's machine line and verdicts; throws without the markers. */
export function withReadmeBlock(
  text: string,
  machine: ReturnType<typeof describeMachine>,
  results: BenchResult[],
): string {
  const [open, close] = README_MARKERS;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start === -1 || end < start) throw new Error(`no ${open} … ${close} block to replace`);
  const block = [
    open,
    `Latest run: ${machine.cores} cores (${machine.cpu}), ${
      machine.ramGiB ?? "?"
    } GiB, ${machine.os}, Deno ${machine.deno}, ${machine.date}.`,
    "",
    ...verdictTable(results),
    "",
    "",
  ].join("\n");
  return text.slice(0, start) + block + text.slice(end);
}

export function markdownReport(
  machine: ReturnType<typeof describeMachine>,
  results: BenchResult[],
): string {
  return [
    "# Benchmark results",
    "",
    "Produced by `deno task bench --md tests/bench/RESULTS.md`, against the simulated node on",
    "loopback. Ratios are measured in the same run; absolute times are context for this machine only.",
    "",
    "## Machine",
    "",
    machineMarkdown(machine),
    "",
    "## Verdicts",
    "",
    ...verdictTable(results),
    "",
    "## Details",
    "",
    ...results.map(markdownSection),
  ].join("\n");
}

if (import.meta.main) {
  let args: BenchArgs;
  try {
    args = parseArgs(Deno.args);
  } catch (error) {
    print((error as Error).message);
    Deno.exit(2);
  }
  const machine = describeMachine();
  print(`mero-mcp benchmarks — ${machine.cores} cores, ${machine.cpu}, Deno ${machine.deno}\n`);
  const ids = args.only.length ? args.only : Object.keys(BENCHMARKS);
  const results: BenchResult[] = [];
  const started = performance.now();
  for (const id of ids) {
    const begun = performance.now();
    try {
      const result = await BENCHMARKS[id]();
      result.notes.push(`took ${((performance.now() - begun) / 1000).toFixed(1)} s`);
      results.push(result);
      print(textTable(result));
    } catch (error) {
      // A benchmark that cannot run is reported, not fatal: the others still measure.
      const failed: BenchResult = {
        id,
        title: "could not run",
        metrics: [],
        notes: [String((error as Error).stack ?? error)],
      };
      results.push(failed);
      print(textTable(failed));
    }
  }
  print(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (args.compare) {
    const { comparisonText } = await import("./compare.ts");
    try {
      print(
        comparisonText(JSON.parse(await Deno.readTextFile(args.compare)), { machine, results }),
      );
    } catch (error) {
      print(`no comparison: ${args.compare} cannot be read (${(error as Error).message})`);
    }
  }
  if (args.json) {
    await Deno.writeTextFile(args.json, JSON.stringify({ machine, results }, null, 2) + "\n");
    print(`wrote ${args.json}`);
  }
  if (args.md) {
    await Deno.writeTextFile(args.md, markdownReport(machine, results));
    print(`wrote ${args.md}`);
  }
  if (args.readme) {
    const text = await Deno.readTextFile(args.readme);
    await Deno.writeTextFile(args.readme, withReadmeBlock(text, machine, results));
    print(`updated the bench block of ${args.readme}`);
  }
}
