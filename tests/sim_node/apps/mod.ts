// The sample-app registry: names, the versions the simulated registry offers, and the mapping from
// an install URL's last path segment (`<name>-<version>.mpk`, `<name>.wasm`) to a sample app.

import type { SampleAppName } from "../types.ts";
import { bignum } from "./bignum.ts";
import { brokenAbi, garbledAbi } from "./broken.ts";
import { coverage } from "./coverage.ts";
import { drive } from "./drive.ts";
import { issueTracker } from "./issue_tracker.ts";
import { kvStore } from "./kv_store.ts";
import { type SampleApp, samplePackage } from "./sample.ts";

export { type SampleApp, samplePackage };

/** Every sample app by name, in preinstall order. */
export const SAMPLE_APPS: Record<SampleAppName, SampleApp> = {
  "kv-store": kvStore,
  "mero-issue-tracker": issueTracker,
  "mero-drive-docs": drive,
  "bignum": bignum,
  "broken-abi": brokenAbi,
  "garbled-abi": garbledAbi,
  "abi-coverage": coverage,
};

/** Every sample app name. */
export const SAMPLE_APP_NAMES = Object.keys(SAMPLE_APPS) as SampleAppName[];

/** The sample app for a short name (`kv-store`) or package (`com.calimero.kv-store`). */
export function findSample(name: string): SampleApp | undefined {
  const short = name.startsWith("com.calimero.") ? name.slice("com.calimero.".length) : name;
  return SAMPLE_APPS[short as SampleAppName];
}

/**
 * Maps an install URL or path onto a sample app and version, by its last path segment:
 * `<name>-<version>.mpk` (name = short name or package; the version must be one the sample offers)
 * or `<name>.wasm` (the default version). Anything else → null (the node answers a plain-text 500).
 */
export function sampleForUrl(url: string): { app: SampleApp; version: string } | null {
  const segment = url.split(/[?#]/)[0].split("/").pop() ?? "";
  const mpk = /^(.+)-(\d+\.\d+\.\d+[0-9A-Za-z.+-]*)\.mpk$/.exec(segment);
  if (mpk) {
    const app = findSample(mpk[1]);
    return app && app.versions.includes(mpk[2]) ? { app, version: mpk[2] } : null;
  }
  const wasm = /^(.+)\.wasm$/.exec(segment);
  const app = wasm ? findSample(wasm[1]) : undefined;
  return app ? { app, version: app.versions[0] } : null;
}
