import assert from "assert";
import { generatedAbi, generatedApps } from "./apps_gen.ts";
import { parseAbiManifest } from "../../src/apps/abi_parse.ts";

// The published wasm-abi JSON Schema in ../data predates `doc` on types (the real issue-tracker ABI fails it
// too), so the generated ABIs are checked by the product's own parser instead.
Deno.test("every generated ABI parses as wasm-abi/1 without problems and has 25 methods besides init", () => {
  for (let app = 0; app < 200; app++) {
    const manifest = parseAbiManifest(generatedAbi(app, 25));
    assert.deepEqual(manifest.problems, [], `app ${app} parses without problems`);
    assert.equal(manifest.methods.filter((m) => m.name !== "init").length, 25);
  }
});

Deno.test("generated apps are deterministic and have distinct packages", () => {
  const a = generatedApps(200, 25);
  assert.deepEqual(a, generatedApps(200, 25));
  assert.equal(new Set(a.map((x) => x.package)).size, 200);
});

Deno.test("the generator uses the realistic kinds: records, lists, variants, nullable, u64", () => {
  const text = JSON.stringify(generatedApps(20, 25).map((x) => x.abi));
  for (
    const needle of [
      '"record"',
      '"list"',
      '"variant"',
      '"nullable":true',
      '"u64"',
      '"map"',
      '"alias"',
    ]
  ) {
    assert.ok(text.includes(needle), `${needle} occurs`);
  }
});
