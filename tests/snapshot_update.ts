// `deno task snapshots`: rewrites the golden tool lists. Run it on purpose, then review the diff.
// deno-lint-ignore-file no-console -- a developer command that reports what it wrote.

import { goldenTools, REAL_ABIS, SAMPLE_ABIS, snapshotPath } from "./golden.ts";
import { hasRealData, REAL_DATA_NEEDED } from "../src/testing/unit.ts";
import { generatedDocs, withBlock } from "./docs_generated.ts";

await Deno.mkdir(new URL("./snapshots/", import.meta.url), { recursive: true });
if (!hasRealData()) console.error(`real ABIs left as they are (${REAL_DATA_NEEDED})`);
for (const { name, snapshot, path } of [...SAMPLE_ABIS, ...(hasRealData() ? REAL_ABIS : [])]) {
  const tools = await goldenTools(name, path);
  await Deno.writeTextFile(snapshotPath(snapshot), JSON.stringify(tools, null, 2) + "\n");
  console.error(`${snapshot}: ${tools.length} tools`);
}

// The fixed tools' precomputed input schemas (src/tools/tool.ts reads them instead of converting zod at start).
const { liveFixedSchemas } = await import("../src/tools/fixed_schemas_test.ts");
const schemasFile = new URL("../src/tools/fixed_schemas.json", import.meta.url);
await Deno.writeTextFile(schemasFile, JSON.stringify(liveFixedSchemas(), null, 2) + "\n");
console.log(`fixed tool input schemas: ${Object.keys(liveFixedSchemas()).length} tools`);

// The documentation's generated blocks (the tools table, the configuration table), then `deno fmt` on their files.
const docs = generatedDocs();
for (const { file, name, block } of docs) {
  const path = new URL(`../${file}`, import.meta.url);
  await Deno.writeTextFile(path, withBlock(await Deno.readTextFile(path), name, block));
}
const files = [...new Set(docs.map((d) => new URL(`../${d.file}`, import.meta.url).pathname))];
const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", ...files] })
  .output();
if (!fmt.success) throw new Error(`deno fmt failed: ${new TextDecoder().decode(fmt.stderr)}`);
console.log(`documentation blocks: ${docs.map((d) => `${d.file} (${d.name})`).join(", ")}`);
