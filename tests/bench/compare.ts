// A run against the last recorded one (`deno task bench --compare <json>`): which figures moved beyond their noise,
// so a regression is seen when it lands. Noise is each run's own spread of the samples behind a figure (report.ts
// `spread`); a figure without one (a count, a single window) gets NOISE_FLOOR. Absolute times from another machine
// say little: the comparison says so when the machines differ, and ratios are the figures to read then.

import type { BenchResult, Metric } from "./report.ts";

/** The relative change taken as noise where a figure carries no spread of its own. */
export const NOISE_FLOOR = 0.1;
/** How many times its noise a figure must move by to be called moved. */
export const NOISE_TIMES = 2;

/** A recorded run, as `--json` writes it. */
export interface RecordedRun {
  machine: { cores: number; cpu: string; deno: string; date: string };
  results: BenchResult[];
}

/** One figure that moved. */
export interface Moved {
  bench: string;
  name: string;
  before: number;
  now: number;
  /** now ÷ before − 1. */
  change: number;
  /** The noise it was judged against. */
  noise: number;
  /** A target's verdict that changed: "pass → MISS" or "MISS → pass". */
  verdict?: string;
}

function numeric(metric: Metric): number | null {
  return typeof metric.value === "number" && Number.isFinite(metric.value) ? metric.value : null;
}

/** The figures of `now` that moved beyond their noise since `before`, and verdicts that changed. */
export function movedSince(before: RecordedRun, now: RecordedRun): Moved[] {
  const old = new Map<string, Metric>();
  for (const result of before.results) {
    for (const metric of result.metrics) old.set(`${result.id}\0${metric.name}`, metric);
  }
  const moved: Moved[] = [];
  for (const result of now.results) {
    for (const metric of result.metrics) {
      const was = old.get(`${result.id}\0${metric.name}`);
      const a = was ? numeric(was) : null;
      const b = numeric(metric);
      if (was === undefined || a === null || b === null || a === 0) continue;
      const change = b / a - 1;
      const noise = Math.max(was.spread ?? NOISE_FLOOR, metric.spread ?? NOISE_FLOOR);
      const verdict =
        was.pass !== undefined && metric.pass !== undefined && was.pass !== metric.pass
          ? `${was.pass ? "pass" : "MISS"} → ${metric.pass ? "pass" : "MISS"}`
          : undefined;
      if (Math.abs(change) > NOISE_TIMES * noise || verdict) {
        moved.push({
          bench: result.id,
          name: metric.name,
          before: a,
          now: b,
          change,
          noise,
          verdict,
        });
      }
    }
  }
  return moved;
}

/** The comparison as lines for the terminal. */
export function comparisonText(before: RecordedRun, now: RecordedRun): string {
  const same = before.machine.cpu === now.machine.cpu && before.machine.cores === now.machine.cores;
  const moved = movedSince(before, now);
  const lines = [
    `Against the run of ${before.machine.date} (${before.machine.cores} cores, ${before.machine.cpu}, Deno ${before.machine.deno}):`,
    ...(same ? [] : [
      "  another machine: absolute times are not comparable; read the ratios.",
    ]),
  ];
  if (moved.length === 0) lines.push("  nothing moved beyond its noise.");
  for (const m of moved) {
    const sign = m.change > 0 ? "+" : "";
    lines.push(
      `  ${m.bench} ${m.name}: ${m.before} → ${m.now} (${sign}${
        (m.change * 100).toFixed(0)
      } %, noise ±${(m.noise * 100).toFixed(0)} %)${m.verdict ? `  ${m.verdict}` : ""}`,
    );
  }
  return lines.join("\n");
}
