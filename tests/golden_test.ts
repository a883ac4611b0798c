// Golden tool lists and schema compatibility for every sample ABI and (when the real data is there) every real ABI: the snapshots match, names fit clients,
// schemas have object roots without composition, `$ref` only for recursion, and all compile with ajv 2020-12.

import assert from "assert";
import { Ajv2020 } from "ajv/dist/2020";
import { Ajv } from "ajv";
import { type GoldenAbi, goldenTools, REAL_ABIS, SAMPLE_ABIS, snapshotPath } from "./golden.ts";
import { realDataTest, realDataText } from "../src/testing/unit.ts";

const GOLDEN: [GoldenAbi, (name: string, fn: () => Promise<void>) => void][] = [
  ...SAMPLE_ABIS.map((abi) => [abi, Deno.test] as [GoldenAbi, typeof Deno.test]),
  ...REAL_ABIS.map((abi) => [abi, realDataTest] as [GoldenAbi, typeof realDataTest]),
];

for (const [{ name, snapshot: file, path }, test] of GOLDEN) {
  test(`the generated tools of ${file} match the committed snapshot`, async () => {
    const tools = await goldenTools(name, path);
    const snapshot = JSON.parse(await Deno.readTextFile(snapshotPath(file)));
    assert.deepEqual(
      JSON.parse(JSON.stringify(tools)),
      snapshot,
      `run "deno task snapshots" if the change is intended, and review the diff`,
    );
  });

  test(`every schema of ${file} is one real clients accept`, async () => {
    const tools = await goldenTools(name, path);
    // ajv 2020-12 in strict mode, and draft-07 as the v1 SDK and most hosts run it (non-strict).
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const draft7 = new Ajv({ strict: false });
    for (const tool of tools) {
      const toolName = tool.name as string;
      assert.match(toolName, /^[a-z0-9_]{1,49}$/);
      const input = tool.inputSchema as Record<string, unknown>;
      assert.equal(input.type, "object", `${toolName}: object root`);
      for (const key of ["oneOf", "anyOf", "allOf", "not"]) {
        assert.ok(!(key in input), `${toolName}: no ${key} at the root`);
      }
      const text = JSON.stringify(input);
      if (text.includes('"$ref"')) assert.ok("$defs" in input, `${toolName}: $ref only with $defs`);
      ajv.compile(input);
      draft7.compile(input);
      if (tool.outputSchema) {
        ajv.compile(tool.outputSchema as Record<string, unknown>);
        draft7.compile(tool.outputSchema as Record<string, unknown>);
      }
      const annotations = tool.annotations as Record<string, unknown>;
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
        assert.equal(typeof annotations[hint], "boolean", `${toolName}: ${hint} set`);
      }
    }
  });
}

async function everyMethodKnown(golden: GoldenAbi, abiText: string): Promise<void> {
  const tools = await goldenTools(golden.name, golden.path);
  const abi = JSON.parse(abiText);
  const methods = (abi.methods as { name: string }[]).map((m) => m.name).filter((n) =>
    n !== "init"
  );
  assert.equal(tools.length, methods.length);
  for (const tool of tools) {
    // An unknown kind maps to `{}`: no property schema may be empty.
    const props = (tool.inputSchema as { properties: Record<string, unknown> }).properties;
    for (const [param, schema] of Object.entries(props)) {
      assert.notDeepEqual(schema, {}, `${tool.name}.${param} has a known kind`);
    }
  }
}

Deno.test("every method of the abi-coverage sample maps to a tool with no unknown kinds", async () => {
  const coverage = SAMPLE_ABIS.find((a) => a.name === "abi-coverage")!;
  await everyMethodKnown(coverage, await Deno.readTextFile(coverage.path));
});

realDataTest("every method of abi_conformance maps to a tool with no unknown kinds", async () => {
  const conformance = REAL_ABIS.find((a) => a.name === "abi-conformance")!;
  await everyMethodKnown(conformance, realDataText("core/apps/abi_conformance/abi.expected.json"));
});
