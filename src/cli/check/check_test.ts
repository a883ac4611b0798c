import assert from "assert";
import { join } from "path";
import { fileURLToPath } from "node:url";
import { checkPath, type CheckReport, PLACEHOLDER_APP_ID } from "./check.ts";
import { guessPackage } from "./input.ts";
import { renderCheck } from "./render.ts";
import { REAL_ABI_FILES, realDataPath, realDataTest } from "../../testing/unit.ts";
import { DATA } from "../../../tests/sim_node/apps/data.ts";

/** A sample app's data file (in the repository). */
const sample = (name: string) =>
  fileURLToPath(new URL(`../../../tests/sim_node/apps/fixtures/${name}`, import.meta.url));
const KV = sample(DATA.kvStoreAbi);
const TRACKER = sample(DATA.issueTrackerAbi);
const GUIDE = sample(DATA.issueTrackerGuide);
const DRIVE_MANIFEST = sample(DATA.driveManifest);
const SAMPLE_ABIS = [KV, TRACKER, sample(DATA.coverageAbi)];

/** The real ABIs (optional), by their path under the real data's calimero-network/. */
const REAL_ABIS = REAL_ABI_FILES.map((f) => f.path);

function problems(report: CheckReport): string[] {
  return [
    ...report.problems,
    ...report.units.flatMap((u) => u.problems),
    ...(report.guide?.problems ?? []),
  ].map((p) => `${p.severity}: ${p.message}`);
}

function toolNames(report: CheckReport): string[] {
  return report.units.flatMap((u) => u.tools.map((t) => t.name));
}

async function tempAbi(abi: unknown, name = "abi.json"): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "mero-check-" });
  const path = join(dir, name);
  await Deno.writeTextFile(path, typeof abi === "string" ? abi : JSON.stringify(abi));
  return path;
}

function abi(methods: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { schema_version: "wasm-abi/1", types: {}, methods, events: [], ...extra };
}

function method(name: string, params: unknown[] = [], more: Record<string, unknown> = {}) {
  return { name, params, returns: { kind: "unit" }, intent: "mutating", ...more };
}

async function validWithNoWarnings(path: string): Promise<void> {
  const report = await checkPath(path);
  assert.equal(report.valid, true, problems(report).join("\n"));
  assert.deepEqual(
    problems(report).filter((p) => !p.startsWith("note:")),
    [],
    "no unknown kinds, no unsorted lists, no collisions",
  );
  const methods = report.units[0].counts.methods;
  const leftOut = report.units[0].leftOut.length;
  assert.equal(report.toolCount, methods - leftOut);
}

for (const path of SAMPLE_ABIS) {
  Deno.test(`every sample ABI is valid with no warnings: ${path.split("/").pop()}`, async () => {
    await validWithNoWarnings(path);
  });
}

for (const path of REAL_ABIS) {
  realDataTest(`every real ABI is valid with no warnings: ${path}`, async () => {
    await validWithNoWarnings(realDataPath(path));
  });
}

Deno.test("kv-store lists its tools with signatures, annotations and prefixed lengths; init is left out", async () => {
  const report = await checkPath(KV);
  assert.equal(report.package, "kv-store");
  assert.equal(report.packageAssumed, true);
  const get = report.units[0].tools.find((t) => t.name === "kv_store_get")!;
  assert.equal(get.signature, "[view] get(key: string) -> string");
  assert.equal(get.prefixedLength, "mcp__mero__kv_store_get".length);
  assert.deepEqual(get.annotations, {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  });
  assert.deepEqual(report.units[0].leftOut.map((l) => l.method), ["init"]);
  assert.ok(!toolNames(report).includes("kv_store_init"));
});

const BROKEN: { name: string; content: unknown; mentions: string[] }[] = [
  {
    name: "another major schema version",
    content: { ...abi([]), schema_version: "wasm-abi/2" },
    mentions: ["wasm-abi/2", "not supported"],
  },
  {
    name: "a dangling $ref",
    content: abi([method("get", [{ name: "id", type: { $ref: "Missing" } }])]),
    mentions: ['"Missing"', 'param "id"'],
  },
  { name: "invalid JSON", content: "{ not json", mentions: ["not valid JSON"] },
  {
    name: "a method without params",
    content: abi([{ name: "get" }]),
    mentions: ['method "get"', "params"],
  },
];

for (const c of BROKEN) {
  Deno.test(`an ABI with ${c.name} is invalid and the problem is named`, async () => {
    const report = await checkPath(await tempAbi(c.content));
    assert.equal(report.valid, false);
    const errors = problems(report).filter((p) => p.startsWith("error:")).join("\n");
    for (const word of c.mentions) assert.ok(errors.includes(word), `${word} in ${errors}`);
  });
}

Deno.test("a missing path is invalid with a message naming it and what to pass", async () => {
  const report = await checkPath("/nonexistent/abi.json");
  assert.equal(report.valid, false);
  const text = problems(report).join("\n");
  assert.match(text, /\/nonexistent\/abi\.json/);
  assert.match(text, /no such file/);
  assert.match(text, /bundle directory/);
});

Deno.test("unknown kinds, unsorted methods and missing events are warnings, not errors", async () => {
  const path = await tempAbi({
    schema_version: "wasm-abi/1",
    types: { Blob: { kind: "tensor" } },
    methods: [method("set"), method("get", [{ name: "b", type: { $ref: "Blob" } }])],
  });
  const report = await checkPath(path);
  assert.equal(report.valid, true);
  const text = problems(report).join("\n");
  assert.match(text, /warning: type "Blob": unknown kind "tensor"/);
  assert.match(text, /warning: methods are not sorted by name \("set" comes before "get"\)/);
  assert.match(text, /warning: "events" is missing/);
});

Deno.test("a method with its own app_handle is left out and says it is reachable through call", async () => {
  const report = await checkPath(
    await tempAbi(abi([method("act", [{ name: "app_handle", type: { kind: "string" } }])])),
  );
  assert.deepEqual(report.units[0].tools, []);
  assert.match(report.units[0].leftOut[0].reason, /only through `call`/);
});

Deno.test("a name over 49 characters is shortened and the note shows the full one", async () => {
  const long = "a_really_long_method_name_that_goes_on_and_on_forever";
  const report = await checkPath(await tempAbi(abi([method(long)]), "kv-store.json"));
  const [tool] = report.units[0].tools;
  assert.equal(tool.length, 49);
  assert.match(problems(report).join("\n"), new RegExp(`kv_store_${long}.*over 49`));
});

Deno.test("a package segment over 20 characters is reported as shortened in every tool name", async () => {
  const report = await checkPath(
    await tempAbi(abi([method("tally")]), "a_very_long_package_segment.json"),
  );
  assert.deepEqual(toolNames(report), ["a_very_long_package__tally"]);
  assert.match(
    problems(report).join("\n"),
    /note: Tool names start with "a_very_long_package__", shortened from "a_very_long_package_segment"/,
  );
  const short = await checkPath(await tempAbi(abi([method("tally")]), "short.json"));
  assert.doesNotMatch(problems(short).join("\n"), /shortened/);
});

Deno.test("methods that sanitise alike and a fixed tool's name are reported as collisions", async () => {
  const path = await tempAbi(abi([method("Get_Value"), method("get_value")]), "list.json");
  const nodes = await tempAbi(abi([method("nodes")]), "list.json");
  const alike = await checkPath(path);
  assert.match(problems(alike).join("\n"), /2 methods would be named "list_get_value"/);
  assert.equal(new Set(toolNames(alike)).size, 2);
  const fixed = await checkPath(nodes);
  assert.match(problems(fixed).join("\n"), /"list_nodes" is a fixed tool's name/);
  assert.deepEqual(toolNames(fixed), [`list_${PLACEHOLDER_APP_ID}_nodes`]);
});

Deno.test("views without an intent are noted, since their tools are marked as writes", async () => {
  const report = await checkPath(
    await tempAbi(abi([{ name: "get", params: [], returns: { kind: "string" } }])),
  );
  assert.match(problems(report).join("\n"), /note: 1 of 1 methods declare no intent \(get\)/);
});

Deno.test("a bundle directory whose ABI files are missing says which", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mero-bundle-" });
  await Deno.copyFile(DRIVE_MANIFEST, join(dir, "manifest.json"));
  const report = await checkPath(dir);
  assert.equal(report.valid, false);
  assert.equal(report.kind, "bundle");
  const text = problems(report).join("\n");
  assert.match(text, /registry\.abi\.json \(service "registry"\)/);
  assert.match(text, /docs\.abi\.json \(service "docs"\)/);
});

Deno.test("a bundle directory names each service's tools from the package and the service", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mero-bundle-" });
  await Deno.copyFile(DRIVE_MANIFEST, join(dir, "manifest.json"));
  await Deno.copyFile(KV, join(dir, "registry.abi.json"));
  await Deno.writeTextFile(join(dir, "docs.abi.json"), JSON.stringify(abi([method("edit")])));
  await Deno.writeTextFile(join(dir, "GUIDE.md"), "# Drive\n\n## Procedures\n\n### Share a doc\n");
  const report = await checkPath(dir);
  assert.equal(report.valid, true, problems(report).join("\n"));
  assert.equal(report.package, "com.calimero.mero-drive-docs");
  assert.deepEqual(report.units.map((u) => u.service), ["docs", "registry"]);
  assert.ok(toolNames(report).includes("mero_drive_d_docs_edit"));
  assert.ok(toolNames(report).includes("mero_drive_d_registry_get"));
  assert.deepEqual(report.guide?.procedures, ["Share a doc"]);
});

Deno.test("the guide's procedures are listed, and a guide without them gets a note", async () => {
  const report = await checkPath(TRACKER, { guideFile: GUIDE });
  assert.ok((report.guide?.procedures.length ?? 0) > 0);
  const bare = await tempAbi("# Guide\n\nNo procedures here.\n", "GUIDE.md");
  const noted = await checkPath(KV, { guideFile: bare });
  assert.match(problems(noted).join("\n"), /no "## Procedures" section/);
  const missing = await checkPath(KV, { guideFile: "/nonexistent/GUIDE.md" });
  assert.equal(missing.valid, false);
});

Deno.test("the text report has every tool and no colour codes when colour is off", async () => {
  const report = await checkPath(TRACKER, { guideFile: GUIDE });
  const text = renderCheck(report, { color: false });
  assert.ok(!text.includes("\x1b["));
  for (const name of toolNames(report)) assert.ok(text.includes(name), name);
  assert.match(text, /Procedures \(\d+\)/);
  assert.match(text, /Valid: 19 tools would be generated\./);
  assert.ok(renderCheck(report, { color: true }).includes("\x1b["));
});

const GUESSES: [string, string][] = [
  ["/a/apps/kv-store/logic/res/abi.json", "kv-store"],
  ["/a/test/fixtures/abi/kv-store.json", "kv-store"],
  ["/a/core/apps/abi_conformance/abi.expected.json", "abi_conformance"],
  ["/x/registry-abi.json", "registry"],
  ["abi.json", "app"],
];

Deno.test("a bare ABI's package is guessed from its file name or nearest telling directory", () => {
  for (const [path, expected] of GUESSES) assert.equal(guessPackage(path), expected, path);
});

Deno.test("check --marks checks a marks file against the app's ABI and lists the tools as the server applies the marks", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const good = `${dir}/good.json`;
    const bad = `${dir}/bad.json`;
    const report0 = await checkPath(KV);
    const pkg = report0.package!;
    const binding = { signer: "signer-a", version: "1.0.0" };
    await Deno.writeTextFile(
      good,
      JSON.stringify({ [pkg]: { ...binding, views: ["get"], destructive: ["clear"] } }),
    );
    await Deno.writeTextFile(bad, JSON.stringify({ [pkg]: { ...binding, views: ["gett"] } }));
    const ok = await checkPath(KV, { marksFile: good });
    assert.ok(ok.valid, JSON.stringify(ok.problems));
    // The tools listed are the ones the server lists with the marks applied.
    const clear = ok.units[0].tools.find((t) => t.method === "clear")!;
    assert.equal(clear.annotations.destructiveHint, true);
    const wrong = await checkPath(KV, { marksFile: bad });
    assert.equal(wrong.valid, false);
    assert.match(wrong.problems.map((p) => p.message).join("\n"), /marks: no method gett/);
    // A view mark that names no signer and version is not applied, and check says so.
    const unbound = `${dir}/unbound.json`;
    await Deno.writeTextFile(unbound, JSON.stringify({ [pkg]: { views: ["set"] } }));
    const loose = await checkPath(KV, { marksFile: unbound });
    assert.equal(loose.valid, false);
    assert.match(
      loose.problems.map((p) => p.message).join("\n"),
      /not applied: set: view marks apply only to the signer and version they name/,
    );
    assert.equal(
      loose.units[0].tools.find((t) => t.method === "set")!.annotations.readOnlyHint,
      false,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("check refuses a guide over the registry's 16 KiB, as publishing would", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const guide = `${dir}/GUIDE.md`;
    await Deno.writeTextFile(
      guide,
      `# Guide\n\n## Procedures\n\n### Do it\n\n${"x".repeat(17 * 1024)}\n`,
    );
    const report = await checkPath(KV, { guideFile: guide });
    assert.equal(report.valid, false);
    assert.match(
      report.guide!.problems.map((p) => p.message).join("\n"),
      /over 16 KiB \(invalid_guide\)/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
