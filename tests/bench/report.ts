// Benchmark results as data (metrics with a target and a verdict), their statistics, and how they print:
// a plain-text table for the terminal and a Markdown table for RESULTS.md.

/** One measured value, optionally judged against a target. */
export interface Metric {
  name: string;
  value: number | string;
  unit: string;
  /** The target as the spec states it, e.g. "≤ 400 ms"; absent for context-only rows. */
  target?: string;
  /** true = met, false = missed; absent when there is nothing to judge. */
  pass?: boolean;
  /**
   * The run's own spread of the samples the value came from, relative to it: (p75 − p25) ÷ p50. What a later run
   * must move by to count as moved (compare.ts); absent for single measurements and counts.
   */
  spread?: number;
}

/** What one benchmark produced. */
export interface BenchResult {
  id: string;
  title: string;
  metrics: Metric[];
  /** How it was measured and what to read into it. */
  notes: string[];
}

/** Sorted copy of the samples. */
function sorted(samples: number[]): number[] {
  return [...samples].sort((a, b) => a - b);
}

/** The q-quantile (0..1) by the nearest-rank method; NaN for no samples. */
export function quantile(samples: number[], q: number): number {
  if (samples.length === 0) return NaN;
  const s = sorted(samples);
  const rank = Math.min(s.length, Math.max(1, Math.ceil(q * s.length)));
  return s[rank - 1];
}

/** The median (mean of the two middle values for an even count). */
export function median(samples: number[]): number {
  if (samples.length === 0) return NaN;
  const s = sorted(samples);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** (p75 − p25) ÷ p50 of the samples: the run's own noise for a median, relative to it. */
export function spreadOf(samples: number[]): number | undefined {
  const mid = median(samples);
  if (samples.length < 3 || !Number.isFinite(mid) || mid === 0) return undefined;
  return Number(((quantile(samples, 0.75) - quantile(samples, 0.25)) / Math.abs(mid)).toFixed(3));
}

/** The metric with the spread of the samples its value came from. */
export function sampled(metric: Metric, samples: number[]): Metric {
  const spread = spreadOf(samples);
  return spread === undefined ? metric : { ...metric, spread };
}

/** Rounds for display: 3 significant decimals below 10, 2 below 100, 1 otherwise. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  const abs = Math.abs(value);
  const digits = abs < 10 ? 3 : abs < 100 ? 2 : 1;
  return Number(value.toFixed(digits));
}

/** A metric judged by `value <= limit`. */
export function atMost(
  name: string,
  value: number,
  unit: string,
  limit: number,
  target: string,
): Metric {
  return { name, value: round(value), unit, target, pass: value <= limit };
}

/** A context-only metric. */
export function info(name: string, value: number | string, unit = ""): Metric {
  return { name, value: typeof value === "number" ? round(value) : value, unit };
}

function verdict(metric: Metric): string {
  return metric.pass === undefined ? "" : metric.pass ? "pass" : "MISS";
}

function rows(result: BenchResult): string[][] {
  return result.metrics.map((m) => [
    m.name,
    `${m.value}${m.unit ? ` ${m.unit}` : ""}`,
    m.target ?? "",
    verdict(m),
  ]);
}

const HEADER = ["metric", "measured", "target", "result"];

/** A plain-text table for the terminal. */
export function textTable(result: BenchResult): string {
  const body = rows(result);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  return [
    `${result.id}  ${result.title}`,
    line(HEADER),
    line(widths.map((w) => "-".repeat(w))),
    ...body.map(line),
    ...result.notes.map((n) => `  · ${n}`),
    "",
  ].join("\n");
}

/** A Markdown section for RESULTS.md. */
export function markdownSection(result: BenchResult): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  return [
    `### ${result.id} — ${result.title}`,
    "",
    `| ${HEADER.join(" | ")} |`,
    `| ${HEADER.map(() => "---").join(" | ")} |`,
    ...rows(result).map((r) => `| ${r.map(cell).join(" | ")} |`),
    "",
    ...result.notes.map((n) => `- ${n}`),
    "",
  ].join("\n");
}

/** Writes text to stdout (benchmarks print their tables; lint forbids console.log). */
export function print(text: string): void {
  const bytes = new TextEncoder().encode(text.endsWith("\n") ? text : text + "\n");
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}
