// What can be configured, as data: every flag with the variable it overrides, the variables read from the
// environment only, and their defaults. The parser (config.ts) and `--help` (src/cli/help.ts) both read these tables,
// so a flag cannot be parsed and missing from the help, or the reverse.

import { LOG_LEVELS } from "../lib/log.ts";

/** The optional toolsets; `core` and the app tools are always on. */
export const TOOLSETS = ["core", "blobs", "governance", "apps"] as const;
export type Toolset = typeof TOOLSETS[number];

/** The default result budget in characters: 24,000 tokens at 3 characters each. */
export const RESULT_CHARS = 72_000;

/** One flag: the environment variable it overrides, the Config key it sets, and its line in `--help`. */
interface FlagSpec {
  env?: string;
  key: string;
  takesValue: boolean;
  /** How it is written in `--help` (the flag and its value). */
  usage: string;
  /** What it does, in `--help` (a second line after a newline). */
  about: string;
}

/** The defaults a value falls back to, named once for the parser and `--help`. */
export const DEFAULTS = {
  nodeTimeoutMs: 10_000,
  pollSeconds: 30,
  eventIdleSeconds: 45,
  resultChars: RESULT_CHARS,
  probePorts: [2528, 2428, 2529, 2429],
} as const;

/** Every flag, in `--help` order. */
export const FLAGS: Record<string, FlagSpec> = {
  "--node-url": {
    env: "CALIMERO_NODE_URL",
    key: "nodeUrl",
    takesValue: true,
    usage: "--node-url URL",
    about: "node base URL (may carry a path prefix); skips discovery",
  },
  "--node-name": {
    env: "CALIMERO_NODE_NAME",
    key: "nodeName",
    takesValue: true,
    usage: "--node-name NAME",
    about: "a node directory under CALIMERO_NODE_HOME (default ~/.calimero)",
  },
  "--nodes": {
    env: "CALIMERO_NODES",
    key: "nodes",
    takesValue: true,
    usage: "--nodes LIST",
    about:
      "more nodes by name, name=url comma-separated; tools then take `node`\n(the nodes under CALIMERO_NODE_HOME are named by their folders)",
  },
  "--registry-url": {
    env: "CALIMERO_REGISTRY_URL",
    key: "registryUrl",
    takesValue: true,
    usage: "--registry-url URL",
    about: "app registry for install_application package@version",
  },
  "--state-dir": {
    env: "CALIMERO_MCP_STATE_DIR",
    key: "stateDir",
    takesValue: true,
    usage: "--state-dir DIR",
    about: "state directory (default ~/.config/calimero/mcp)",
  },
  "--toolsets": {
    env: "CALIMERO_MCP_TOOLSETS",
    key: "toolsets",
    takesValue: true,
    usage: "--toolsets LIST",
    about: `${TOOLSETS.join(",")} or all (default all; core always on)`,
  },
  "--apps": {
    env: "CALIMERO_MCP_APPS",
    key: "apps",
    takesValue: true,
    usage: "--apps LIST",
    about: "only these apps get generated tools",
  },
  "--max-tools": {
    env: "CALIMERO_MCP_MAX_TOOLS",
    key: "maxTools",
    takesValue: true,
    usage: "--max-tools N",
    about: "tool budget for clients with a cap",
  },
  "--log": {
    env: "CALIMERO_MCP_LOG",
    key: "logLevel",
    takesValue: true,
    usage: "--log LEVEL",
    about: `${LOG_LEVELS.join(", ")} (default info)`,
  },
  "--read-only": {
    env: "CALIMERO_MCP_READ_ONLY",
    key: "readOnly",
    takesValue: false,
    usage: "--read-only",
    about: "list only tools that read; refuse methods that write",
  },
  "--confirm-destructive": {
    env: "CALIMERO_MCP_CONFIRM_DESTRUCTIVE",
    key: "confirmDestructive",
    takesValue: true,
    usage: "--confirm-destructive ask|require",
    about: "ask the person first (default ask;\nrequire: refuse where the client cannot ask)",
  },
  "--channel": {
    env: "CALIMERO_MCP_CHANNEL",
    key: "channel",
    takesValue: true,
    usage: "--channel LIST",
    about:
      'push news of these contexts (ids, aliases, or "selected") into a\nClaude Code session (stdio; the capability claude/channel)',
  },
  "--http": {
    key: "http",
    takesValue: true,
    usage: "--http HOST:PORT",
    about: "loopback HTTP mode",
  },
  "--http-token-file": {
    key: "httpTokenFile",
    takesValue: true,
    usage: "--http-token-file F",
    about: 'HTTP mode: require "Authorization: Bearer <content of F>"',
  },
  "--guide": {
    key: "guide",
    takesValue: true,
    usage: "--guide FILE",
    about: 'for "check": a guide file',
  },
  "--marks": {
    key: "marks",
    takesValue: true,
    usage: "--marks FILE",
    about: 'for "check": a marks file (app-marks.json)',
  },
  "--json": { key: "json", takesValue: false, usage: "--json", about: 'for "check": JSON output' },
  "--version": {
    key: "version",
    takesValue: false,
    usage: "--version",
    about: "print the version",
  },
  "--help": { key: "help", takesValue: false, usage: "--help, -h", about: "print this help" },
};

/** The variables read from the environment only, with their line in `--help`. */
export const ENV_ONLY: Record<string, string> = {
  CALIMERO_NODE_HOME: "where local nodes live (default ~/.calimero)",
  CALIMERO_AUTH_TOKEN: "a token for the node (wins over the desktop app's agent.json)",
  CALIMERO_REFRESH_TOKEN: "its refresh token",
  CALIMERO_USERNAME: "username for the node's embedded auth",
  CALIMERO_PASSWORD: "its password",
  CALIMERO_PASSWORD_FILE: "file holding the password",
  CALIMERO_NODE_TIMEOUT_MS: `node request timeout (default ${DEFAULTS.nodeTimeoutMs})`,
  CALIMERO_MCP_POLL_SECONDS: `catalog poll interval (default ${DEFAULTS.pollSeconds})`,
  CALIMERO_MCP_EVENT_IDLE_SECONDS:
    `a silent event stream is reopened after (default ${DEFAULTS.eventIdleSeconds})`,
  CALIMERO_MCP_RESULT_CHARS: `most characters in one tool result (default ${DEFAULTS.resultChars})`,
  CALIMERO_MCP_PROBE_PORTS: `local ports probed by discovery (default ${
    DEFAULTS.probePorts.join(",")
  })`,
  CALIMERO_MCP_ALLOW_LOCAL_URLS:
    "1: send install URLs on loopback and private addresses (older nodes)",
  CALIMERO_MCP_ALLOW_REMOTE_HTTP:
    "1: accept a named node on another machine over plain http (tokens travel unencrypted)",
};

/** Where Deno looks for its module cache (DENO_DIR, else under these homes): what a `deno run` runner needs. */
export const RUNNER_ENV_VARS = [
  "DENO_DIR",
  "HOME",
  "XDG_CACHE_HOME",
  "LOCALAPPDATA",
  "USERPROFILE",
];

/** Every environment variable the configuration reads (main asks for exactly these). */
export const CONFIG_ENV_VARS: readonly string[] = [
  ...Object.values(FLAGS).flatMap((f) => f.env ? [f.env] : []),
  ...Object.keys(ENV_ONLY),
  ...RUNNER_ENV_VARS, // HOME and USERPROFILE among them (the state dir's default place)
  "BROWSER", // `mero-mcp login`: the command that opens the sign-in page, as other CLIs read it
];
