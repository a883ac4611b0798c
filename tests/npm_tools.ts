// Third-party command-line tools the tests install from npm once per machine (the MCP Inspector, Claude Code's
// validator): where they are kept, and whether npm is there to install them.

import assert from "assert";
import { ROOT } from "./harness.ts";

/** The user's cache directory for them (MERO_MCP_TEST_CACHE, else $XDG_CACHE_HOME or ~/.cache). */
export const TEST_CACHE = Deno.env.get("MERO_MCP_TEST_CACHE") ??
  `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME") ?? ROOT}/.cache`}/mero-mcp-tests`;

/** npm's command on this OS. */
export const NPM = Deno.build.os === "windows" ? "npm.cmd" : "npm";

/** Whether `command --version` runs here. */
export async function has(command: string): Promise<boolean> {
  try {
    return (await new Deno.Command(command, { args: ["--version"], stdout: "null", stderr: "null" })
      .output()).success;
  } catch {
    return false;
  }
}

/**
 * Installs `spec` with npm under `prefix` unless `installed` (a file the package puts there) already exists; throws
 * with npm's own words when the install fails. `ignoreScripts`: skip the package's install scripts.
 */
export async function installOnce(
  options: { prefix: string; spec: string; installed: string; ignoreScripts?: boolean },
): Promise<void> {
  try {
    await Deno.stat(options.installed);
    return;
  } catch {
    // not installed yet
  }
  const out = await new Deno.Command(NPM, {
    args: [
      "install",
      "--no-audit",
      "--no-fund",
      ...(options.ignoreScripts ? ["--ignore-scripts"] : []),
      "--prefix",
      options.prefix,
      options.spec,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}
