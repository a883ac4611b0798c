// Helpers for the unit tests beside the modules (never imported by the product).

import { join } from "path";
import { fileURLToPath } from "node:url";
import { stripControls } from "../lib/text.ts";

/** Whether the text holds a control character that `stripControls` would take out. */
export function hasControls(text: string): boolean {
  return stripControls(text) !== text;
}

/** Removes ANSI styles. */
export function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

/** Runs `fn` with stderr captured (the logger writes there synchronously); returns what was written. */
export async function captureStderr(fn: () => Promise<unknown>): Promise<string> {
  const original = Deno.stderr.writeSync;
  let text = "";
  Deno.stderr.writeSync = (bytes: Uint8Array) => {
    text += new TextDecoder().decode(bytes);
    return bytes.length;
  };
  try {
    await fn();
  } finally {
    Deno.stderr.writeSync = original;
  }
  return text;
}

/**
 * The optional real data: files from public Calimero repositories (ABIs, a guide, recorded wire bodies), in
 * `$MERO_MCP_REAL_DATA` or else `../shared/data` beside the clone. Tests that need it are registered with
 * {@link realDataTest}; the product and every other test run without it. Read lazily: a test's child process
 * may run without env or read permission.
 */
export function realDataDir(): string {
  return Deno.env.get("MERO_MCP_REAL_DATA") ??
    fileURLToPath(new URL("../../../shared/data/", import.meta.url));
}

let realDataPresent: boolean | undefined;

/** Whether the real data is there (its `calimero-network/` folder exists). */
export function hasRealData(): boolean {
  if (realDataPresent === undefined) {
    try {
      realDataPresent = Deno.statSync(join(realDataDir(), "calimero-network")).isDirectory;
    } catch {
      realDataPresent = false;
    }
  }
  return realDataPresent;
}

/** What a skipped real-data test says it needs, in its printed name. */
export const REAL_DATA_NEEDED =
  "needs real data: ../shared/data beside the clone, or MERO_MCP_REAL_DATA";

/** The real ABI files (paths under `calimero-network/`) with their method counts. */
export const REAL_ABI_FILES: readonly { path: string; methods: number }[] = [
  { path: "apps/apps/kv-store/logic/res/abi.json", methods: 11 },
  { path: "apps/apps/mero-issue-tracker/logic/res/abi.json", methods: 20 },
  { path: "mero-mcp/test/fixtures/abi/kv-store.json", methods: 11 },
  { path: "core/apps/abi_conformance/abi.expected.json", methods: 40 },
  { path: "core/apps/abi_conformance_resolved/abi.expected.json", methods: 5 },
  { path: "core/apps/state-schema-conformance/state-schema.expected.json", methods: 0 },
];

/** The path of a real data file, given its path under `calimero-network/` ("core/apps/…/abi.expected.json"). */
export function realDataPath(path: string): string {
  return join(realDataDir(), "calimero-network", path);
}

/** The text of a real data file (see {@link realDataPath}); call it inside a {@link realDataTest}. */
export function realDataText(path: string): string {
  return Deno.readTextFileSync(realDataPath(path));
}

/**
 * A test over the real data: runs when the data is there, else is listed as ignored with what it needs. When
 * `MERO_MCP_REAL_DATA` names a folder that does not hold the data, the test fails instead of skipping, so a CI
 * that means to run these cannot lose them silently.
 */
export function realDataTest(name: string, fn: () => void | Promise<void>): void {
  if (hasRealData()) {
    Deno.test(name, fn);
  } else if (Deno.env.get("MERO_MCP_REAL_DATA") !== undefined) {
    Deno.test(name, () => {
      throw new Error(
        `MERO_MCP_REAL_DATA is ${realDataDir()}, which holds no calimero-network/ folder.`,
      );
    });
  } else {
    Deno.test({ name: `${name} (${REAL_DATA_NEEDED})`, ignore: true, fn });
  }
}
