// Reads the real data files the sample apps are built from (ABIs, the guide, the bundle manifest).
// The repo sits beside `shared/`, so they are found relative to this module, read once, cached.

const ROOT = new URL("../../../../shared/data/calimero-network/", import.meta.url);
const cache = new Map<string, string>();

/** The text of a file under `shared/data/calimero-network/` (e.g. "apps/apps/kv-store/…"). */
export function dataText(path: string): string {
  let text = cache.get(path);
  if (text === undefined) {
    try {
      text = Deno.readTextFileSync(new URL(path, ROOT));
    } catch (error) {
      throw new Error(
        `The simulated node cannot read its sample data "${new URL(path, ROOT).pathname}": ${
          (error as Error).message
        }. Run it with --allow-read from the mero-mcp checkout next to shared/.`,
      );
    }
    cache.set(path, text);
  }
  return text;
}

/** Paths of the data files the sample apps use. */
export const DATA = {
  kvStoreAbi: "apps/apps/kv-store/logic/res/abi.json",
  kvStoreAbiWithDocs: "mero-mcp/test/fixtures/abi/kv-store.json",
  issueTrackerAbi: "apps/apps/mero-issue-tracker/logic/res/abi.json",
  issueTrackerGuide: "apps/apps/mero-issue-tracker/logic/GUIDE.md",
  driveManifest: "apps/apps/mero-drive/logic/manifest.json",
  conformanceAbi: "core/apps/abi_conformance/abi.expected.json",
  conformanceResolvedAbi: "core/apps/abi_conformance_resolved/abi.expected.json",
} as const;
