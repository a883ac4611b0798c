// Golden tool lists: the generated tools for each real ABI in ../shared/data, built offline through the same
// catalog and generator the server uses. `deno task snapshots` rewrites them on purpose; the test diffs.

import { fileURLToPath } from "node:url";
import { createCatalog } from "../src/apps/catalog.ts";
import { parseAbiManifest } from "../src/apps/abi_parse.ts";
import { buildGeneratedTools } from "../src/tools/generated.ts";
import { parseConfig } from "../src/node/config.ts";
import { listEntry } from "../src/tools/tool.ts";
import type { Application } from "../src/mero/types.ts";

/** The shared data directory (beside the repository). */
export const DATA = fileURLToPath(new URL("../../shared/data/", import.meta.url));

/** Each real ABI: a snapshot name, its path under DATA, and the package it is installed as. */
export const REAL_ABIS = [
  { name: "kv-store", path: "calimero-network/apps/apps/kv-store/logic/res/abi.json" },
  {
    name: "mero-issue-tracker",
    path: "calimero-network/apps/apps/mero-issue-tracker/logic/res/abi.json",
  },
  { name: "kv-store-docs", path: "calimero-network/mero-mcp/test/fixtures/abi/kv-store.json" },
  { name: "abi-conformance", path: "calimero-network/core/apps/abi_conformance/abi.expected.json" },
  {
    name: "abi-conformance-resolved",
    path: "calimero-network/core/apps/abi_conformance_resolved/abi.expected.json",
  },
] as const;

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
  const manifest = parseAbiManifest(JSON.parse(await Deno.readTextFile(`${DATA}${path}`)));
  const app = record(name);
  const catalog = createCatalog({
    listApplications: () => Promise.resolve([app]),
    loadAbi: () => Promise.resolve(manifest),
    onChange: () => {},
    pollSeconds: 3600,
  });
  const state = await catalog.refresh();
  catalog.stop();
  const config = parseConfig([], {});
  const fakeNode = {} as never;
  const generated = await buildGeneratedTools(state.units, state.apps, config, 0, {
    node: fakeNode,
    catalog,
    key: {} as CryptoKey,
  });
  return generated.tools.map(listEntry);
}

/** Where a snapshot lives. */
export function snapshotPath(name: string): string {
  return fileURLToPath(new URL(`./snapshots/${name}.json`, import.meta.url));
}
