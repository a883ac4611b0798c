// `mero-mcp check` as a command: the real process on the sample ABIs (and the real ones when present), broken ones, bundles, --json, exit codes.

import assert from "assert";
import { join } from "path";
import { isolatedEnv, ROOT, runServer } from "./harness.ts";
import { realDataPath, realDataTest } from "../src/testing/unit.ts";
import { DATA } from "./sim_node/apps/data.ts";

const check = async (args: string[]) => runServer(["check", ...args], await isolatedEnv());

const FIXTURES = join(ROOT, "tests", "sim_node", "apps", "fixtures");
const SAMPLE_ABIS: { path: string; tools: string[] }[] = [
  { path: join(FIXTURES, DATA.kvStoreAbi), tools: ["kv_store_get", "kv_store_clear"] },
  { path: join(FIXTURES, DATA.issueTrackerAbi), tools: ["mero_issue_tracker_create_issue"] },
  { path: join(FIXTURES, DATA.coverageAbi), tools: ["coverage_echo_u64", "coverage_pair"] },
];
const REAL_ABIS: { path: string; tools: string[] }[] = [
  { path: "apps/apps/kv-store/logic/res/abi.json", tools: ["kv_store_get", "kv_store_set"] },
  {
    path: "apps/apps/mero-issue-tracker/logic/res/abi.json",
    tools: ["mero_issue_tracker_create_issue"],
  },
  { path: "mero-mcp/test/fixtures/abi/kv-store.json", tools: ["kv_store_clear"] },
  { path: "core/apps/abi_conformance/abi.expected.json", tools: ["abi_conformance_echo_u64"] },
  {
    path: "core/apps/abi_conformance_resolved/abi.expected.json",
    tools: ["abi_conformance_reso_tally"],
  },
  { path: "core/apps/state-schema-conformance/state-schema.expected.json", tools: [] },
];

async function temp(name: string, content: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "mero-check-e2e-" });
  await Deno.writeTextFile(join(dir, name), content);
  return join(dir, name);
}

async function checksClean(abis: { path: string; tools: string[] }[]): Promise<void> {
  for (const abi of abis) {
    const result = await check([abi.path]);
    assert.equal(result.code, 0, `${abi.path}: ${result.stdout}${result.stderr}`);
    for (const tool of abi.tools) assert.ok(result.stdout.includes(tool), `${abi.path}: ${tool}`);
    assert.doesNotMatch(result.stdout, /unknown kind/);
    assert.match(result.stdout, /Valid: \d+ tools? would be generated/);
    assert.ok(!result.stdout.includes("\x1b["), "no colour when stdout is not a terminal");
  }
}

Deno.test("check exits 0 on every sample ABI, lists its tools and reports no unknown kinds", async () => {
  await checksClean(SAMPLE_ABIS);
});

realDataTest(
  "check exits 0 on every real ABI, lists its tools and reports no unknown kinds",
  async () => {
    await checksClean(REAL_ABIS.map((abi) => ({ ...abi, path: realDataPath(abi.path) })));
  },
);

const BROKEN: { name: string; content: string; mentions: string[] }[] = [
  {
    name: "a wasm-abi/2 manifest",
    content: JSON.stringify({ schema_version: "wasm-abi/2", types: {}, methods: [], events: [] }),
    mentions: ["wasm-abi/2"],
  },
  {
    name: "a dangling $ref",
    content: JSON.stringify({
      schema_version: "wasm-abi/1",
      types: {},
      methods: [{ name: "get", params: [], returns: { $ref: "Nowhere" } }],
      events: [],
    }),
    mentions: ['"Nowhere"', 'method "get"'],
  },
  { name: "invalid JSON", content: '{"schema_version": ', mentions: ["not valid JSON"] },
];

for (const c of BROKEN) {
  Deno.test(`check exits 1 on ${c.name}, naming the problem`, async () => {
    const path = await temp("abi.json", c.content);
    const result = await check([path]);
    assert.equal(result.code, 1, result.stdout);
    for (const word of c.mentions) assert.ok(result.stdout.includes(word), word);
    assert.match(result.stdout, /Invalid: 1 error/);
  });
}

Deno.test("check exits 1 on a path that does not exist, saying so", async () => {
  const result = await check(["/nonexistent/abi.json"]);
  assert.equal(result.code, 1);
  assert.match(result.stdout, /Cannot read "\/nonexistent\/abi\.json": no such file/);
});

Deno.test("check without a path is a usage error (exit 2)", async () => {
  const result = await check([]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /Usage: mero-mcp check/);
});

Deno.test("check --json prints one JSON report with the tools, the guide's procedures and validity", async () => {
  const result = await check([
    join(FIXTURES, DATA.issueTrackerAbi),
    "--guide",
    join(FIXTURES, DATA.issueTrackerGuide),
    "--json",
  ]);
  assert.equal(result.code, 0);
  const report = JSON.parse(result.stdout);
  assert.equal(report.valid, true);
  assert.equal(report.toolCount, 19);
  const tool = report.units[0].tools.find((t: { method: string }) => t.method === "get_issue");
  assert.equal(tool.name, "mero_issue_tracker_get_issue");
  assert.equal(tool.prefixedLength, "mcp__mero__mero_issue_tracker_get_issue".length);
  assert.equal(tool.annotations.readOnlyHint, true);
  assert.deepEqual(report.guide.procedures.slice(0, 2), ["Link the repository", "Open an issue"]);
});

Deno.test("check on a bundle directory checks every service's ABI, and names the missing ones", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mero-check-bundle-" });
  await Deno.copyFile(join(FIXTURES, DATA.driveManifest), join(dir, "manifest.json"));
  const missing = await check([dir]);
  assert.equal(missing.code, 1);
  assert.match(missing.stdout, /registry\.abi\.json \(service "registry"\)/);
  assert.match(missing.stdout, /docs\.abi\.json \(service "docs"\)/);

  await Deno.copyFile(join(FIXTURES, DATA.kvStoreAbi), join(dir, "registry.abi.json"));
  await Deno.copyFile(join(FIXTURES, DATA.coverageAbi), join(dir, "docs.abi.json"));
  const ok = await check([dir]);
  assert.equal(ok.code, 0, ok.stdout);
  assert.match(ok.stdout, /Service "docs"/);
  assert.match(ok.stdout, /Service "registry"/);
  assert.match(ok.stdout, /mero_drive_d_registry_get /);
  assert.match(ok.stdout, /mero_drive_d_docs_pair /);
});
