// The `--help` text: commands, then every flag and environment variable, generated from the configuration's own
// table (src/config/config.ts), so a flag cannot be parsed and left out of the help, or the reverse.

import { ENV_ONLY, FLAGS } from "../config/flags.ts";

const USAGE = `mero-mcp — an MCP server for a Calimero node

Usage:
  mero-mcp                         serve MCP on stdio (what MCP clients run)
  mero-mcp --http 127.0.0.1:7331   serve MCP on loopback HTTP instead
  mero-mcp doctor                  check discovery, auth and the node; exit 0 when the server would work
  mero-mcp check <abi.json|dir>    validate an app's ABI offline and print the tools it would generate
  mero-mcp login [node]            sign in to a node in the browser (as meroctl does; BROWSER names the
                                   command that opens it) and keep its tokens for that node
  mero-mcp watch <ids|aliases>     print one line per burst of news in these contexts ("selected": the
                                   ones agents select), for Claude Code's Monitor and plugin monitors
  mero-mcp --version | --help | -h | help

Flags may come before or after the command (mero-mcp --node-url URL doctor).
`;

/** Lines of `left` padded to `width`, then `about` (its own lines under the first, indented alike). */
function row(left: string, about: string, width: number): string {
  const [first, ...rest] = about.split("\n");
  const pad = " ".repeat(width + 2);
  const head = left.length >= width
    ? `  ${left}\n${pad}${first}`
    : `  ${left.padEnd(width)}${first}`;
  return [head, ...rest.map((line) => `${pad}${line}`)].join("\n");
}

/** Printed by `mero-mcp --help`. */
export const HELP_TEXT = [
  USAGE,
  "Flags (each overrides the environment variable beside it):",
  ...Object.values(FLAGS).map((f) =>
    row(`${f.usage.padEnd(20)}${f.env ? ` ${f.env}` : ""}`, f.about, 46)
  ),
  "",
  "Environment only:",
  ...Object.entries(ENV_ONLY).map(([name, about]) => row(name, about, 46)),
  "",
].join("\n");

/**
 * Said on stderr when the server is started by hand in a terminal (stdin is a terminal, not a client's pipe):
 * otherwise it waits in silence for JSON-RPC and looks hung.
 */
export const TERMINAL_HINT =
  "mero-mcp is running and waits for an MCP client on stdin (JSON-RPC lines, not commands). To try it: deno task demo (a simulated node and a real client); to check your node: mero-mcp doctor (from a clone: deno task dev doctor); to connect a client, see docs/install.md. Ctrl-C stops it.";
