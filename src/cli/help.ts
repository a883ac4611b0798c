// The `--help` text: commands, flags and the environment variables they mirror.

/** Printed by `mero-mcp --help`. */
export const HELP_TEXT = `mero-mcp — an MCP server for a Calimero node

Usage:
  mero-mcp                         serve MCP on stdio (what MCP clients run)
  mero-mcp --http 127.0.0.1:7331   serve MCP on loopback HTTP instead
  mero-mcp doctor                  check discovery, auth and the node; exit 0 when the server would work
  mero-mcp check <abi.json|dir>    validate an app's ABI offline and print the tools it would generate
  mero-mcp --version | --help | -h | help

Flags may come before or after the command (mero-mcp --node-url URL doctor).

Flags (each overrides the environment variable beside it):
  --node-url URL        CALIMERO_NODE_URL        node base URL (may carry a path prefix); skips discovery
  --node-name NAME      CALIMERO_NODE_NAME       a node directory under CALIMERO_NODE_HOME (default ~/.calimero)
  --registry-url URL    CALIMERO_REGISTRY_URL    app registry for install_application package@version
  --state-dir DIR       CALIMERO_MCP_STATE_DIR   state directory (default ~/.config/calimero/mcp)
  --toolsets LIST       CALIMERO_MCP_TOOLSETS    core,blobs,governance,apps or all (default all; core always on)
  --apps LIST           CALIMERO_MCP_APPS        only these apps get generated tools
  --max-tools N         CALIMERO_MCP_MAX_TOOLS   tool budget for clients with a cap
  --log LEVEL           CALIMERO_MCP_LOG         error, warn, info (default), debug
  --read-only           CALIMERO_MCP_READ_ONLY   list only tools that read; refuse methods that write
  --confirm-destructive ask|require              CALIMERO_MCP_CONFIRM_DESTRUCTIVE: ask the person first
                                                 (default ask; require: refuse where the client cannot ask)
  --channel LIST        CALIMERO_MCP_CHANNEL     push news of these contexts (ids, aliases, or "selected") into a
                                                 Claude Code session (stdio; the capability claude/channel)
  --http HOST:PORT                               loopback HTTP mode
  --http-token-file F                            HTTP mode: require "Authorization: Bearer <content of F>"
  --guide FILE, --marks FILE, --json             for "check": a guide file; a marks file (app-marks.json); JSON output

Environment only:
  CALIMERO_AUTH_TOKEN, CALIMERO_REFRESH_TOKEN    a token (and its refresh token) for the node
  CALIMERO_USERNAME, CALIMERO_PASSWORD           credentials for the node's embedded auth
  CALIMERO_PASSWORD_FILE                         file holding the password
  CALIMERO_NODE_TIMEOUT_MS                       node request timeout (default 10000)
  CALIMERO_MCP_POLL_SECONDS                      catalog poll interval (default 30)
  CALIMERO_MCP_EVENT_IDLE_SECONDS                a silent event stream is reopened after (default 45)
  CALIMERO_MCP_RESULT_CHARS                      most characters in one tool result (default 72000)
  CALIMERO_MCP_PROBE_PORTS                       local ports probed by discovery (default 2528,2428,2529,2429)
`;

/**
 * Said on stderr when the server is started by hand in a terminal (stdin is a terminal, not a client's pipe):
 * otherwise it waits in silence for JSON-RPC and looks hung.
 */
export const TERMINAL_HINT =
  "mero-mcp is running and waits for an MCP client on stdin (JSON-RPC lines, not commands). To try it: deno task demo (a simulated node and a real client); to check your node: mero-mcp doctor (from a clone: deno task dev doctor); to connect a client, see the README's Install. Ctrl-C stops it.";
