// Third-party command-line tools the tests install from npm once per machine (the MCP Inspector, Claude Code's
// validator): where they are kept, and whether npm is there to install them.

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
