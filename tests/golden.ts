// Golden tool lists: the generated tools for each sample app's ABI (in the repository) and each real ABI (in the
// optional real data), built offline through the same catalog and generator the server uses.
// `deno task snapshots` rewrites them on purpose; the test diffs.

import { fileURLToPath } from "node:url";
import { createCatalog } from "../src/apps/catalog.ts";
import { parseAbiManifest } from "../src/apps/abi_parse.ts";
import { createToolBuilder } from "../src/tools/generated.ts";
import { parseConfig } from "../src/config/config.ts";
import { listEntry } from "../src/tools/tool.ts";
import type { Application } from "../src/mero/mod.ts";
import { realDataPath } from "../src/testing/unit.ts";
import { DATA } from "./sim_node/apps/data.ts";

/** One golden list: the app it is installed as, its snapshot's name, and the ABI file's path. */
export interface GoldenAbi {
  name: string;
  snapshot: string;
  path: string;
}

const sample = (name: string, file: string): GoldenAbi => ({
  name,
  snapshot: `sample-${name}`,
  path: fileURLToPath(new URL(`./sim_node/apps/fixtures/${file}`, import.meta.url)),
});

/** The sample apps' ABIs: always there. */
export const SAMPLE_ABIS: GoldenAbi[] = [
  sample("kv-store", DATA.kvStoreAbi),
  sample("mero-issue-tracker", DATA.issueTrackerAbi),
  sample("abi-coverage", DATA.coverageAbi),
];

const real = (name: string, path: string): GoldenAbi => ({
  name,
  snapshot: name,
  path: realDataPath(path),
});

/** The real ABIs: run only when the real data is there (see `realDataTest`). */
export const REAL_ABIS: GoldenAbi[] = [
  real("kv-store", "apps/apps/kv-store/logic/res/abi.json"),
  real("mero-issue-tracker", "apps/apps/mero-issue-tracker/logic/res/abi.json"),
  real("kv-store-docs", "mero-mcp/test/fixtures/abi/kv-store.json"),
  real("abi-conformance", "core/apps/abi_conformance/abi.expected.json"),
  real("abi-conformance-resolved", "core/apps/abi_conformance_resolved/abi.expected.json"),
];

/** A fake installed record for an ABI file (ids are fixed strings: snapshots must not move). */
function record(name: string): Application {
  return {
    id: `App${name.replace(/[^A-Za-z0-9]/g, "")}`,
    blob: { bytecode: `Blob${name.replace(/[^A-Za-z0-9]/g, "")}`, compiled: "" },
    size: 0,
    source: "file://golden",
    metadata: [],
    package: `com.calimero.${name}`,
    version: "1.0.0",
    signer_id: "did:key:zgolden",
  };
}

/** The `tools/list` entries the server would generate for one ABI file. */
export async function goldenTools(name: string, path: string): Promise<Record<string, unknown>[]> {
  const manifest = parseAbiManifest(JSON.parse(await Deno.readTextFile(path)));
  const app = record(name);
  const catalog = createCatalog({
    listApplications: () => Promise.resolve([app]),
    loadAbi: () => Promise.resolve(manifest),
    pollSeconds: 3600,
  });
  const state = await catalog.refresh();
  catalog.stop();
  const config = parseConfig([], {});
  const fakeNode = {} as never;
  const builder = createToolBuilder({
    node: fakeNode,
    catalog,
    key: {} as CryptoKey,
    events: { ownWrite: () => () => {} },
  }, config);
  const generated = await builder.build(state, 0);
  return generated.tools.map(listEntry);
}

/** Where a snapshot lives. */
export function snapshotPath(name: string): string {
  return fileURLToPath(new URL(`./snapshots/${name}.json`, import.meta.url));
}
