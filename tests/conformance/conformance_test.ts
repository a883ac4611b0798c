// The official MCP conformance suite (server mode) against the real process in HTTP mode, per requirement set.
// Every failing check must be listed in expected-failures.json with a reason; every listed check must still fail.

import assert from "assert";
import { fileURLToPath } from "node:url";
import { startHttp } from "../http_harness.ts";

/** The suite, pinned; its dependency tree is pinned by `conformance.lock` beside this file. */
const SUITE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";
const LOCK = fileURLToPath(new URL("./conformance.lock", import.meta.url));
const EXPECTED = new URL("./expected-failures.json", import.meta.url);
const REQUIREMENT_SETS = ["2025-11-25", "2026-07-28"] as const;
/**
 * Scenarios that must run and pass outright in each set; none of them may be listed as expected.
 * `server-stateless` and `caching` must run too, with only their fixture-bound checks listed.
 */
const MUST_PASS: Record<typeof REQUIREMENT_SETS[number], string[]> = {
  "2025-11-25": [
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "dns-rebinding-protection",
  ],
  "2026-07-28": [
    "tools-list",
    "resources-list",
    "dns-rebinding-protection",
    "http-header-validation",
    "sep-2164-resource-not-found",
  ],
};
const MUST_RUN: Record<typeof REQUIREMENT_SETS[number], string[]> = {
  "2025-11-25": MUST_PASS["2025-11-25"],
  "2026-07-28": [...MUST_PASS["2026-07-28"], "server-stateless", "caching"],
};
/** A sanity bound on one run of the suite (it takes seconds when healthy). */
const RUN_TIMEOUT_MS = 180_000;

/** One check as the suite writes it to `<output>/<scenario dir>/checks.json`. */
export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** The expected-failures file: reasons by name, and per requirement set `<scenario>:<check-id>` → reason name. */
interface ExpectedFile {
  suite: string;
  reasons: Record<string, string>;
  [set: string]: unknown;
}

/** What a run shows against the list: failures not listed, listed checks that did not fail, and the tally. */
export interface Verdict {
  unexpected: string[];
  stale: string[];
  passed: number;
  failed: number;
  warnings: string[];
}

/**
 * Compares checks (by scenario) with the expected failures. A check fails when its status is FAILURE; a listed
 * check that passed, or that the run no longer has, is stale.
 */
export function compare(
  results: Map<string, Check[]>,
  expected: Record<string, string>,
): Verdict {
  const failing = new Set<string>();
  const verdict: Verdict = { unexpected: [], stale: [], passed: 0, failed: 0, warnings: [] };
  for (const [scenario, checks] of results) {
    for (const check of checks) {
      const key = `${scenario}:${check.id}`;
      if (check.status === "SUCCESS") verdict.passed++;
      if (check.status === "WARNING") verdict.warnings.push(`${key}: ${check.errorMessage ?? ""}`);
      if (check.status !== "FAILURE") continue;
      verdict.failed++;
      failing.add(key);
      if (!(key in expected)) verdict.unexpected.push(`${key}: ${check.errorMessage ?? ""}`);
    }
  }
  for (const key of Object.keys(expected)) {
    if (!failing.has(key)) verdict.stale.push(key);
  }
  return verdict;
}

/** Reads every `checks.json` the suite wrote, keyed by scenario (directory names end in a timestamp). */
async function readResults(dir: string): Promise<Map<string, Check[]>> {
  const results = new Map<string, Check[]>();
  for await (const entry of Deno.readDir(dir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name);
    if (!entry.isDirectory || !match) continue;
    const checks = JSON.parse(await Deno.readTextFile(`${dir}/${entry.name}/checks.json`));
    results.set(match[1], checks as Check[]);
  }
  return results;
}

/** Runs the suite's CLI under Deno against `url` for one requirement set; returns its summary and output dir. */
async function runSuite(url: string, requirements: string) {
  const out = await Deno.makeTempDir({ prefix: `mero-mcp-conformance-${requirements}-` });
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-config",
      `--lock=${LOCK}`,
      "--frozen",
      SUITE,
      "server",
      "--url",
      url,
      "--requirements",
      requirements,
      "-o",
      out,
    ],
    cwd: out,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
  }).output();
  const text = new TextDecoder().decode(stdout);
  const summary = text.slice(text.indexOf("=== SUMMARY ==="));
  assert.ok(
    text.includes("=== SUMMARY ==="),
    `the suite ran to its summary (exit ${code}):\n${text.slice(-2000)}\n${
      new TextDecoder().decode(stderr).slice(-2000)
    }`,
  );
  return { out, summary };
}

for (const requirements of REQUIREMENT_SETS) {
  Deno.test(`[${requirements}] the conformance suite finds no failure beyond the missing fixtures`, async () => {
    const file = JSON.parse(await Deno.readTextFile(EXPECTED)) as ExpectedFile;
    assert.equal(`npm:${file.suite}`, SUITE, "the list belongs to the pinned suite");
    const expected = file[requirements] as Record<string, string>;
    for (const [key, reason] of Object.entries(expected)) {
      assert.ok(reason in file.reasons, `${key} names a known reason ("${reason}")`);
      const scenario = key.slice(0, key.indexOf(":"));
      assert.ok(!MUST_PASS[requirements].includes(scenario), `${key}: ${scenario} must pass`);
    }
    const server = await startHttp();
    let run;
    try {
      run = await runSuite(server.url, requirements);
    } finally {
      await server.stop();
    }
    try {
      const results = await readResults(run.out);
      assert.ok(results.size > 10, `the suite wrote results (${results.size} scenarios)`);
      for (const scenario of MUST_RUN[requirements]) {
        assert.ok((results.get(scenario) ?? []).length > 0, `${scenario} ran`);
      }
      const verdict = compare(results, expected);
      const report = [
        `${requirements}: ${verdict.passed} checks passed, ${verdict.failed} failed (all expected: ${
          verdict.unexpected.length === 0
        })`,
        ...verdict.warnings.map((w) => `  warning ${w}`),
      ].join("\n");
      assert.deepEqual(
        verdict.unexpected,
        [],
        `failures that are not in expected-failures.json (fix the server):\n${run.summary}`,
      );
      assert.deepEqual(
        verdict.stale,
        [],
        `expected failures that no longer fail (remove them from expected-failures.json):\n${report}`,
      );
    } finally {
      await Deno.remove(run.out, { recursive: true });
    }
  });
}

Deno.test("the conformance comparison reports unexpected failures and stale expectations", () => {
  const results = new Map<string, Check[]>([
    ["ping", [{ id: "ping", status: "SUCCESS" }]],
    ["prompts-list", [{ id: "prompts-list", status: "FAILURE", errorMessage: "Method not found" }]],
    ["caching", [
      { id: "a", status: "SUCCESS" },
      { id: "b", status: "FAILURE", errorMessage: "no hint" },
      { id: "c", status: "WARNING", errorMessage: "should" },
      { id: "d", status: "SKIPPED" },
    ]],
  ]);
  const cases: { expected: Record<string, string>; unexpected: string[]; stale: string[] }[] = [
    {
      expected: { "prompts-list:prompts-list": "prompts", "caching:b": "prompts" },
      unexpected: [],
      stale: [],
    },
    {
      expected: { "prompts-list:prompts-list": "prompts" },
      unexpected: ["caching:b: no hint"],
      stale: [],
    },
    {
      expected: {
        "prompts-list:prompts-list": "prompts",
        "caching:b": "prompts",
        "ping:ping": "now passes",
        "gone:x": "not run",
        "caching:d": "skipped is not failing",
      },
      unexpected: [],
      stale: ["ping:ping", "gone:x", "caching:d"],
    },
  ];
  for (const c of cases) {
    const verdict = compare(results, c.expected);
    assert.deepEqual(verdict.unexpected, c.unexpected);
    assert.deepEqual(verdict.stale, c.stale);
    assert.equal(verdict.passed, 2);
    assert.equal(verdict.failed, 2);
    assert.deepEqual(verdict.warnings, ["caching:c: should"]);
  }
});
