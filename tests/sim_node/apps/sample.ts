// The shape of a sample app: a name, the versions the simulated registry offers, and a builder
// giving the app definition for a version.

import type { CustomApp, SampleAppName } from "../types.ts";

/** A sample app the simulated node can preinstall or install from its registry. */
export interface SampleApp {
  name: SampleAppName;
  /** Versions the registry serves; the first is the default. */
  versions: string[];
  build(options: { version: string }): CustomApp;
}

/** The package of every sample app. */
export function samplePackage(name: SampleAppName): string {
  return `com.calimero.${name}`;
}
