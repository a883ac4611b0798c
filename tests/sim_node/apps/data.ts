// Reads the sample apps' data files (ABIs, the guide, the bundle manifest) from fixtures/ beside this module:
// written for the simulated node, modelled on real Calimero apps, and part of every clone. Read once, cached.

const FIXTURES = new URL("./fixtures/", import.meta.url);
const cache = new Map<string, string>();

/** The text of a file in fixtures/ (e.g. "kv-store.abi.json"). */
export function dataText(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    const url = new URL(name, FIXTURES);
    try {
      text = Deno.readTextFileSync(url);
    } catch (error) {
      throw new Error(
        `The simulated node cannot read its sample file ${url.pathname} (${
          (error as Error).message
        }). ` +
          "The file ships with the repository: restore it with `git checkout -- tests/sim_node/apps/fixtures`, " +
          "and give the process read access to the checkout (`deno task sim-node` does).",
      );
    }
    cache.set(name, text);
  }
  return text;
}

/** The data files the sample apps use, by what they hold. */
export const DATA = {
  kvStoreAbi: "kv-store.abi.json",
  issueTrackerAbi: "mero-issue-tracker.abi.json",
  issueTrackerGuide: "mero-issue-tracker.GUIDE.md",
  driveManifest: "mero-drive-docs.manifest.json",
  coverageAbi: "abi-coverage.abi.json",
} as const;
