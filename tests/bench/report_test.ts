import assert from "assert";
import { atMost, median, quantile } from "./report.ts";
import { parseArgs, withReadmeBlock } from "./main.ts";
import { nodeTimePerCall } from "./b2_call_overhead.ts";

Deno.test("median and nearest-rank quantiles follow their definitions", () => {
  const cases: [number[], number, number, number][] = [
    // samples, median, p50, p99
    [[3, 1, 2], 2, 2, 3],
    [[4, 1, 3, 2], 2.5, 2, 4],
    [Array.from({ length: 100 }, (_, i) => i + 1), 50.5, 50, 99],
    [Array.from({ length: 1000 }, (_, i) => 1000 - i), 500.5, 500, 990],
  ];
  for (const [samples, med, p50, p99] of cases) {
    assert.equal(median(samples), med);
    assert.equal(quantile(samples, 0.5), p50);
    assert.equal(quantile(samples, 0.99), p99);
  }
  assert.ok(Number.isNaN(median([])));
});

Deno.test("a metric passes only at or under its limit", () => {
  assert.equal(atMost("x", 1, "ms", 1, "≤ 1 ms").pass, true);
  assert.equal(atMost("x", 1.0001, "ms", 1, "≤ 1 ms").pass, false);
});

Deno.test("the command line takes --only lists, --json and --md, and refuses the rest", () => {
  assert.deepEqual(parseArgs(["--only", "b2,B5", "--json=out.json"]), {
    only: ["B2", "B5"],
    json: "out.json",
    md: null,
    readme: null,
    compare: null,
  });
  assert.equal(parseArgs(["--readme", "README.md"]).readme, "README.md");
  assert.equal(parseArgs(["--compare", "last.json"]).compare, "last.json");
  assert.throws(() => parseArgs(["--only", "B99"]), /Unknown benchmark B99/);
  assert.throws(() => parseArgs(["--fast"]), /Unknown argument "--fast"/);
  assert.throws(() => parseArgs(["--json"]), /needs a value/);
});

Deno.test("--readme replaces only the marked block with the run's machine line and verdicts", () => {
  const machine = {
    cores: 2,
    cpu: "Test CPU",
    ramGiB: 8,
    os: "TestOS",
    deno: "2.9.6",
    v8: "15",
    date: "2026-12-01",
  };
  const results = [{
    id: "B9",
    title: "t",
    metrics: [{ name: "speed", value: 3, unit: "ms", target: "≤ 5 ms", pass: true }],
    notes: [],
  }];
  const text = "before\n<!-- bench:start -->\nold table\n<!-- bench:end -->\nafter\n";
  const next = withReadmeBlock(text, machine as never, results as never);
  assert.match(next, /^before\n<!-- bench:start -->\nLatest run: 2 cores \(Test CPU\)/);
  assert.match(next, /\| B9 \| speed \| 3 ms \| ≤ 5 ms \| pass \|\n\n<!-- bench:end -->\nafter\n$/);
  assert.doesNotMatch(next, /old table/);
  assert.throws(
    () => withReadmeBlock("no markers", machine as never, results as never),
    /bench:start/,
  );
});

Deno.test("node time per call spans the concurrent checks plus the execute, skipping other requests", () => {
  const app = "GET /admin-api/applications/A";
  const ctx = "GET /admin-api/contexts/for-application/A";
  const rpc = "POST /jsonrpc";
  const timings: [string, number, number][] = [
    ["GET /admin-api/applications", 0, 5], // a catalog read, not part of a call
    [app, 10, 12],
    [ctx, 10.5, 13],
    [rpc, 14, 15],
    [ctx, 20, 21],
    [app, 20.2, 20.8],
    [rpc, 22, 24],
  ];
  assert.deepEqual(nodeTimePerCall(timings), [3 + 1, 1 + 2]);
});

Deno.test("a comparison names the figures that moved beyond their noise and the verdicts that changed", async () => {
  const { movedSince, comparisonText } = await import("./compare.ts");
  const { sampled, spreadOf } = await import("./report.ts");
  assert.equal(spreadOf([10, 10, 10, 10]), 0);
  assert.equal(spreadOf([8, 9, 10, 11, 12]), 0.2);
  const machine = { cores: 2, cpu: "Test CPU", deno: "2.9.6", date: "2026-12-01" };
  const run = (p50: number, calls: number, ratio: number) => ({
    machine,
    results: [{
      id: "B2",
      title: "t",
      notes: [],
      metrics: [
        sampled(atMost("round trip p50", p50, "ms", 1, "≤ 1 ms"), [p50 * 0.95, p50, p50 * 1.05]),
        { name: "requests per call", value: calls, unit: "" },
        atMost("ratio", ratio, "×", 1.3, "≤ 1.3 ×"),
      ],
    }],
  });
  // Within noise: 3 % on a 10 % spread; a count that did not change; a ratio within the noise floor.
  assert.deepEqual(movedSince(run(0.8, 3, 1.2), run(0.824, 3, 1.25)), []);
  const moved = movedSince(run(0.8, 3, 1.2), run(1.2, 4, 1.35));
  assert.deepEqual(moved.map((m) => [m.name, m.verdict ?? null]), [
    ["round trip p50", "pass → MISS"],
    ["requests per call", null],
    ["ratio", "pass → MISS"],
  ]);
  assert.match(
    comparisonText(run(0.8, 3, 1.2), run(1.2, 4, 1.35)),
    /round trip p50: 0\.8 → 1\.2 \(\+50 %/,
  );
  assert.match(
    comparisonText({ ...run(1, 3, 1), machine: { ...machine, cpu: "Other" } }, run(1, 3, 1)),
    /another machine/,
  );
});
