// `deno task snapshots`: rewrites the golden tool lists. Run it on purpose, then review the diff.
// deno-lint-ignore-file no-console -- a developer command that reports what it wrote.

import { goldenTools, REAL_ABIS, snapshotPath } from "./golden.ts";

await Deno.mkdir(new URL("./snapshots/", import.meta.url), { recursive: true });
for (const { name, path } of REAL_ABIS) {
  const tools = await goldenTools(name, path);
  await Deno.writeTextFile(snapshotPath(name), JSON.stringify(tools, null, 2) + "\n");
  console.error(`${name}: ${tools.length} tools`);
}
