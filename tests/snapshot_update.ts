// `deno task snapshots`: rewrites the golden tool lists. Run it on purpose, then review the diff.
// deno-lint-ignore-file no-console -- a developer command that reports what it wrote.

import { goldenTools, REAL_ABIS, SAMPLE_ABIS, snapshotPath } from "./golden.ts";
import { hasRealData, REAL_DATA_NEEDED } from "../src/testing.ts";

await Deno.mkdir(new URL("./snapshots/", import.meta.url), { recursive: true });
if (!hasRealData()) console.error(`real ABIs left as they are (${REAL_DATA_NEEDED})`);
for (const { name, snapshot, path } of [...SAMPLE_ABIS, ...(hasRealData() ? REAL_ABIS : [])]) {
  const tools = await goldenTools(name, path);
  await Deno.writeTextFile(snapshotPath(snapshot), JSON.stringify(tools, null, 2) + "\n");
  console.error(`${snapshot}: ${tools.length} tools`);
}
