// Configuration: environment variables and flags parsed into one plain object.
// Parsing happens once, in the main thread; the worker receives the result by postMessage and reads no env.

import { LOG_LEVELS, type LogLevel } from "../lib/log.ts";
import { DEFAULTS, FLAGS, RUNNER_ENV_VARS, type Toolset, TOOLSETS } from "./flags.ts";
import { redactUrl } from "../lib/redact.ts";
import { isAlias } from "../primitives/alias.ts";
import { isNodeId } from "../primitives/base58.ts";

export { CONFIG_ENV_VARS, ENV_ONLY, FLAGS, RESULT_CHARS, type Toolset, TOOLSETS } from "./flags.ts";

/** A local node found under the node home by the main thread (name and URL only, never its keys). */
export interface ScannedNode {
  name: string;
  url: string;
}

/** A node the person named for this server besides its own (`CALIMERO_NODES`): tools reach it with `node`. */
export interface NamedNode {
  name: string;
  url: string;
}

/** The most nodes one server names. */
export const MAX_NODES = 16;

/** Everything the server needs, parsed and validated. Travels to the worker as structured-clone data. */
export interface Config {
  mode: "stdio" | "http" | "doctor" | "check" | "watch" | "login" | "version" | "help";
  /** `CALIMERO_NODE_URL` without a trailing slash, or null (then discovery runs). */
  nodeUrl: string | null;
  nodeName: string | null;
  nodeHome: string;
  authToken: string | null;
  refreshToken: string | null;
  username: string | null;
  password: string | null;
  registryUrl: string | null;
  /**
   * Send install URLs on loopback and private addresses anyway (`CALIMERO_MCP_ALLOW_LOCAL_URLS`): nodes before
   * 0.11.0-rc.10 download from them; newer ones refuse, so by default the server says so before sending.
   */
  allowLocalInstallUrls: boolean;
  nodeTimeoutMs: number;
  /** Only tools that read are listed, and no method that writes is sent to the node (`--read-only`). */
  readOnly: boolean;
  /**
   * Destructive tools and methods ask the person first when the client can ask (`ask`); with `require`, a client
   * that cannot ask gets a refusal instead.
   */
  confirmDestructive: "ask" | "require";
  stateDir: string;
  toolsets: Toolset[];
  /** Application names for generated tools, or null for every app. */
  apps: string[] | null;
  maxTools: number | null;
  pollSeconds: number;
  /** How long the event stream may stay silent before it is taken for dead (core sends a keep-alive every 15 s). */
  eventIdleSeconds: number;
  /**
   * The most characters a tool result carries (`CALIMERO_MCP_RESULT_CHARS`): hosts cap what a tool may return
   * (Claude Code: 25,000 tokens), so the default is 24,000 tokens' worth at 3 characters per token (JSON is dense).
   */
  resultChars: number;
  probePorts: number[];
  logLevel: LogLevel;
  /** `host:port` for `--http`. */
  http: { hostname: string; port: number } | null;
  httpTokenFile: string | null;
  /**
   * The contexts whose news is pushed into a Claude Code session (`--channel`, `CALIMERO_MCP_CHANNEL`): ids or aliases,
   * and `selected` for every context select_app binds. Null: no channel (the capability is not declared). The
   * person's choice, never the model's: a channel puts text into the session unasked.
   */
  channel: ChannelChoice | null;
  /** Positional arguments of a sub-command (`check <path>`), and its flags. */
  args: string[];
  guideFile: string | null;
  /** `check --marks <file>`: a person's view and destructive marks (apps/marks.ts), checked against the ABI. */
  marksFile: string | null;
  json: boolean;
  /** Nodes found under the node home by the main thread; the worker never reads the node home itself. */
  scannedNodes: ScannedNode[];
  /** More nodes by name (`--nodes`, `CALIMERO_NODES`), besides the one this server discovers or is pointed at. */
  nodes: NamedNode[];
  /** The person accepts a node on another machine over plain http (`CALIMERO_MCP_ALLOW_REMOTE_HTTP=1`). */
  allowRemoteHttp: boolean;
  /** Why the node home scan could not decide (e.g. a named node missing), or null. */
  scanError: string | null;
  /**
   * What code mode's runner needs of this process's environment under `deno run`: where Deno's module cache is
   * (DENO_DIR, or the home it defaults under), since the server worker reads no environment. A compiled executable's
   * runner needs none, so it is empty there.
   */
  runnerEnv: Record<string, string>;
}

/** What the person opted into the channel. */
export interface ChannelChoice {
  /** Context ids or aliases named outright; `node:context` names one on a named node (CALIMERO_NODES). */
  contexts: string[];
  /** Every context select_app binds joins the channel too. */
  selected: boolean;
}

/** The most contexts one channel may name (each is a watched context, of MAX_WATCHED in all). */
export const MAX_CHANNEL_CONTEXTS = 16;

/** A configuration error: the process exits with `exitCode` (2 for bad values, 1 for unreadable files). */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(message: string, readonly exitCode: 1 | 2 = 2) {
    super(message);
  }
}

const SUBCOMMANDS = ["doctor", "check", "watch", "login"] as const;

/**
 * Parses flags and environment into a {@link Config} (without reading any file: the password file and the node
 * home scan are main's job). Every value is trimmed; empty means unset; flags win over the environment.
 * Throws {@link ConfigError} naming the bad value and the accepted ones. A leading `--` is dropped, so the
 * from-source form `deno task dev -- --http …` means what `mero-mcp --http …` does.
 */
export function parseConfig(args: string[], env: Record<string, string | undefined>): Config {
  const argv = args[0] === "--" ? args.slice(1) : args;
  const raw = new Map<string, string>();
  const positional: string[] = [];
  let mode: Config["mode"] = "stdio";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    // The sub-command may come after flags (`--node-url X doctor`), as people type it; only the first is one.
    if (mode === "stdio" && (SUBCOMMANDS as readonly string[]).includes(arg)) {
      mode = arg as Config["mode"];
      continue;
    }
    if (arg === "-h" || (arg === "help" && mode === "stdio")) {
      raw.set("help", "true");
      continue;
    }
    if (!arg.startsWith("--")) {
      if (mode === "check" || mode === "watch" || (mode === "login" && positional.length === 0)) {
        positional.push(arg);
        continue;
      }
      throw new ConfigError(
        `Unexpected argument "${arg}". Run "mero-mcp --help" for the accepted commands and flags.`,
      );
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const spec = FLAGS[name];
    if (!spec) {
      throw new ConfigError(
        `Unknown flag "${name}". Accepted flags: ${Object.keys(FLAGS).join(", ")}.`,
      );
    }
    if (!spec.takesValue) {
      if (eq !== -1) throw new ConfigError(`Flag "${name}" takes no value.`);
      raw.set(spec.key, "true");
      continue;
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new ConfigError(`Flag "${name}" needs a value.`);
    raw.set(spec.key, value);
  }

  const get = (key: string, envName?: string): string | null => {
    const fromFlag = raw.get(key)?.trim();
    if (fromFlag) return fromFlag;
    const fromEnv = envName ? env[envName]?.trim() : undefined;
    return fromEnv ? fromEnv : null;
  };
  const envValue = (name: string): string | null => env[name]?.trim() || null;

  if (mode === "stdio" && raw.get("http")?.trim()) mode = "http";
  if (raw.has("version")) mode = "version";
  if (raw.has("help")) mode = "help";

  const home = envValue("HOME") ?? envValue("USERPROFILE") ?? ".";
  const nodeUrl = get("nodeUrl", "CALIMERO_NODE_URL");
  const username = envValue("CALIMERO_USERNAME");
  const password = envValue("CALIMERO_PASSWORD");
  const authToken = envValue("CALIMERO_AUTH_TOKEN");
  const refreshToken = envValue("CALIMERO_REFRESH_TOKEN");
  if (refreshToken && !authToken) {
    throw new ConfigError(
      "CALIMERO_REFRESH_TOKEN is set without CALIMERO_AUTH_TOKEN. Set the access token too, or unset the refresh token.",
    );
  }
  if (username && !password && !envValue("CALIMERO_PASSWORD_FILE")) {
    throw new ConfigError(
      "CALIMERO_USERNAME is set without a password. Set CALIMERO_PASSWORD or CALIMERO_PASSWORD_FILE.",
    );
  }
  if (!username && (password || envValue("CALIMERO_PASSWORD_FILE"))) {
    throw new ConfigError(
      "A password is set without CALIMERO_USERNAME. Set the username too, or unset the password.",
    );
  }

  // `watch` follows the contexts it names, else the channel's; an explicit empty list (a plugin's unset setting)
  // watches nothing and exits at once (main.ts).
  const watchList = mode === "watch" && positional.length > 0 ? positional.join(",") : null;
  const channel = watchList !== null
    ? (watchList.replaceAll(",", "").trim() === "" ? null : parseChannel(watchList, "watch"))
    : mapNullable(get("channel", "CALIMERO_MCP_CHANNEL"), parseChannel);
  if (mode === "watch" && watchList === null && channel === null) {
    throw new ConfigError(
      'watch needs the contexts to follow: mero-mcp watch <id or alias>[,…] (or "selected": every context agents select), or set CALIMERO_MCP_CHANNEL.',
    );
  }
  if (channel && mode === "http") {
    throw new ConfigError(
      "--channel / CALIMERO_MCP_CHANNEL works over stdio only: Claude Code loads channels as stdio servers, and stateless HTTP has no stream to push on. Drop --http, or unset the channel.",
    );
  }

  const allowRemoteHttp = parseSwitch(
    envValue("CALIMERO_MCP_ALLOW_REMOTE_HTTP"),
    "CALIMERO_MCP_ALLOW_REMOTE_HTTP",
  );

  return {
    mode,
    nodeUrl: nodeUrl === null ? null : parseNodeUrl(nodeUrl),
    nodes: mapNullable(get("nodes", "CALIMERO_NODES"), (v) => parseNodes(v, allowRemoteHttp)) ?? [],
    allowRemoteHttp,
    nodeName: get("nodeName", "CALIMERO_NODE_NAME"),
    nodeHome: envValue("CALIMERO_NODE_HOME") ?? joinPath(home, ".calimero"),
    authToken,
    refreshToken,
    username,
    password,
    registryUrl: mapNullable(
      get("registryUrl", "CALIMERO_REGISTRY_URL"),
      (v) => parseHttpUrl(v, "CALIMERO_REGISTRY_URL / --registry-url"),
    ),
    readOnly: parseSwitch(
      get("readOnly", "CALIMERO_MCP_READ_ONLY"),
      "CALIMERO_MCP_READ_ONLY / --read-only",
    ),
    confirmDestructive: parseConfirm(get("confirmDestructive", "CALIMERO_MCP_CONFIRM_DESTRUCTIVE")),
    allowLocalInstallUrls: parseSwitch(
      envValue("CALIMERO_MCP_ALLOW_LOCAL_URLS"),
      "CALIMERO_MCP_ALLOW_LOCAL_URLS",
    ),
    nodeTimeoutMs: parseInteger(
      envValue("CALIMERO_NODE_TIMEOUT_MS"),
      "CALIMERO_NODE_TIMEOUT_MS",
      DEFAULTS.nodeTimeoutMs,
      100,
      600_000,
    ),
    stateDir: get("stateDir", "CALIMERO_MCP_STATE_DIR") ??
      joinPath(home, ".config", "calimero", "mcp"),
    toolsets: parseToolsets(get("toolsets", "CALIMERO_MCP_TOOLSETS")),
    apps: mapNullable(get("apps", "CALIMERO_MCP_APPS"), parseList),
    maxTools: mapNullable(
      get("maxTools", "CALIMERO_MCP_MAX_TOOLS"),
      (v) => parseInteger(v, "CALIMERO_MCP_MAX_TOOLS / --max-tools", 0, 1, 100_000),
    ),
    pollSeconds: parseInteger(
      envValue("CALIMERO_MCP_POLL_SECONDS"),
      "CALIMERO_MCP_POLL_SECONDS",
      DEFAULTS.pollSeconds,
      1,
      86_400,
    ),
    eventIdleSeconds: parseInteger(
      envValue("CALIMERO_MCP_EVENT_IDLE_SECONDS"),
      "CALIMERO_MCP_EVENT_IDLE_SECONDS",
      DEFAULTS.eventIdleSeconds,
      1,
      3_600,
    ),
    resultChars: parseInteger(
      envValue("CALIMERO_MCP_RESULT_CHARS"),
      "CALIMERO_MCP_RESULT_CHARS",
      DEFAULTS.resultChars,
      10_000,
      10_000_000,
    ),
    probePorts: parsePorts(envValue("CALIMERO_MCP_PROBE_PORTS")),
    logLevel: parseLogLevel(get("logLevel", "CALIMERO_MCP_LOG")),
    channel,
    http: mapNullable(raw.get("http")?.trim() || null, parseListenAddress),
    httpTokenFile: raw.get("httpTokenFile")?.trim() || null,
    args: positional,
    guideFile: raw.get("guide")?.trim() || null,
    marksFile: raw.get("marks")?.trim() || null,
    json: raw.has("json"),
    scannedNodes: [],
    scanError: null,
    runnerEnv: Deno.build.standalone ? {} : Object.fromEntries(
      RUNNER_ENV_VARS.flatMap((name) => env[name]?.trim() ? [[name, env[name]!.trim()]] : []),
    ),
  };
}

function mapNullable<T>(value: string | null, f: (v: string) => T): T | null {
  return value === null ? null : f(value);
}

function joinPath(...parts: string[]): string {
  const sep = parts[0].includes("\\") && !parts[0].includes("/") ? "\\" : "/";
  return parts.map((p, i) => i === 0 ? p.replace(/[\\/]+$/, "") : p).join(sep);
}

function parseList(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * `selected`, context ids and aliases, comma-separated: each must be a context id (base58, 32 bytes) or what the node
 * accepts as an alias (src/primitives/alias.ts), refused here before it is sent anywhere.
 */
function parseChannel(value: string, what = "CALIMERO_MCP_CHANNEL / --channel"): ChannelChoice {
  const items = parseList(value);
  const contexts = [...new Set(items.filter((item) => item !== "selected"))];
  for (const named of contexts) {
    // `node:context`: a context on a named node (a node name never holds ":", nor does an id or an alias).
    const colon = named.indexOf(":");
    const item = colon === -1 ? named : named.slice(colon + 1);
    if (colon !== -1 && !NODE_NAME.test(named.slice(0, colon))) {
      throw new ConfigError(
        `${what}: "${
          named.slice(0, 64)
        }" names no node before its ":". Write node:context, with a node name of letters, digits, . _ -.`,
      );
    }
    if (!isNodeId(item) && !isAlias(item)) {
      throw new ConfigError(
        `${what}: "${
          item.slice(0, 64)
        }" is not a context id or alias. Expected ids or aliases (1 to 50 letters, digits, . _ -), comma-separated, or "selected" for every context select_app binds.`,
      );
    }
  }
  if (contexts.length > MAX_CHANNEL_CONTEXTS) {
    throw new ConfigError(
      `${what}: ${contexts.length} contexts named; a channel takes at most ${MAX_CHANNEL_CONTEXTS}.`,
    );
  }
  if (items.length === 0) {
    throw new ConfigError(
      `${what}: "${value}" names no context. Expected ids or aliases, or "selected".`,
    );
  }
  return { contexts, selected: items.includes("selected") };
}

function parseHttpUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Never the raw value: its userinfo or query string may hold a password or a token.
    throw new ConfigError(
      `${what}: "${redactUrl(value)}" is not a URL. Expected e.g. http://localhost:2528.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${what}: "${url.protocol}" is not supported. Use http:// or https://.`);
  }
  return value;
}

/** A node's name: what the `node` argument takes (letters, digits, . _ -; at most 64). */
export const NODE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * `name=url` pairs, comma-separated. A node on another machine over plain http is refused unless the person allows it
 * (`CALIMERO_MCP_ALLOW_REMOTE_HTTP=1`): its tokens would cross the network unencrypted.
 */
function parseNodes(value: string, allowRemoteHttp: boolean): NamedNode[] {
  const what = "CALIMERO_NODES / --nodes";
  const nodes: NamedNode[] = [];
  for (const item of parseList(value)) {
    const eq = item.indexOf("=");
    const name = eq === -1 ? "" : item.slice(0, eq).trim();
    if (!NODE_NAME.test(name) || name === "default") {
      throw new ConfigError(
        `${what}: "${
          item.slice(0, 80)
        }" is not name=url. Expected e.g. node2=http://127.0.0.1:2529 (a name of letters, digits, . _ -, not "default"), comma-separated.`,
      );
    }
    const url = parseHttpUrl(item.slice(eq + 1).trim(), `${what} (${name})`).replace(/\/+$/, "");
    if (remoteOverPlainHttp(url) && !allowRemoteHttp) {
      throw new ConfigError(
        `${what}: ${name} is on another machine (${
          new URL(url).hostname
        }) over plain http, so its tokens would cross the network unencrypted. Use https, or set CALIMERO_MCP_ALLOW_REMOTE_HTTP=1 to accept that.`,
      );
    }
    if (nodes.some((n) => n.name === name)) {
      throw new ConfigError(`${what}: the name ${name} is given twice.`);
    }
    nodes.push({ name, url });
  }
  if (nodes.length > MAX_NODES) {
    throw new ConfigError(
      `${what}: ${nodes.length} nodes named; a server takes at most ${MAX_NODES}.`,
    );
  }
  return nodes;
}

/**
 * Whether a node address is on another machine over plain http, where its tokens would cross the network
 * unencrypted: refused (in CALIMERO_NODES and by `mero-mcp login`) unless the person allows it.
 */
export function remoteOverPlainHttp(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  const loopback = hostname === "localhost" || hostname === "[::1]" || /^127\./.test(hostname);
  return protocol === "http:" && !loopback;
}

function parseNodeUrl(value: string): string {
  return parseHttpUrl(value, "CALIMERO_NODE_URL / --node-url").replace(/\/+$/, "");
}

function parseInteger(
  value: string | null,
  what: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === null) return fallback;
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(
      `${what}: "${value}" is not accepted. Expected an integer from ${min} to ${max}.`,
    );
  }
  return Number(value);
}

function parseConfirm(value: string | null): "ask" | "require" {
  if (value === null || value === "ask") return "ask";
  if (value === "require") return "require";
  throw new ConfigError(
    `CALIMERO_MCP_CONFIRM_DESTRUCTIVE / --confirm-destructive: "${value}" is not accepted. Expected ask (the default: ask the person when the client can) or require (refuse when it cannot).`,
  );
}

function parseSwitch(value: string | null, what: string): boolean {
  if (value === null || ["0", "false", "no"].includes(value.toLowerCase())) return false;
  if (["1", "true", "yes"].includes(value.toLowerCase())) return true;
  throw new ConfigError(`${what}: "${value}" is not accepted. Expected 1 or 0 (true or false).`);
}

function parseToolsets(value: string | null): Toolset[] {
  if (value === null) return [...TOOLSETS];
  const names = parseList(value);
  const chosen = new Set<Toolset>(["core"]);
  for (const name of names) {
    if (name === "all") {
      TOOLSETS.forEach((t) => chosen.add(t));
    } else if ((TOOLSETS as readonly string[]).includes(name)) {
      chosen.add(name as Toolset);
    } else {
      throw new ConfigError(
        `Unknown toolset "${name}". Accepted: ${TOOLSETS.join(", ")}, all.`,
      );
    }
  }
  return TOOLSETS.filter((t) => chosen.has(t));
}

function parsePorts(value: string | null): number[] {
  if (value === null) return [...DEFAULTS.probePorts];
  const ports = parseList(value).map((p) =>
    parseInteger(p, "CALIMERO_MCP_PROBE_PORTS", 0, 1, 65535)
  );
  if (ports.length === 0) {
    throw new ConfigError(
      `CALIMERO_MCP_PROBE_PORTS: "${value}" names no port. Expected e.g. 2528,2428.`,
    );
  }
  return ports;
}

function parseLogLevel(value: string | null): LogLevel {
  if (value === null) return "info";
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError(`Unknown log level "${value}". Accepted: ${LOG_LEVELS.join(", ")}.`);
  }
  return value as LogLevel;
}

const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"];

function parseListenAddress(value: string): { hostname: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):([0-9]+)$/.exec(value);
  if (!match) {
    throw new ConfigError(`--http: "${value}" is not host:port. Expected e.g. 127.0.0.1:7331.`);
  }
  const hostname = match[1];
  if (!LOOPBACK_HOSTS.includes(hostname)) {
    throw new ConfigError(
      `--http: "${hostname}" is not a loopback address. HTTP mode serves loopback only: use 127.0.0.1, localhost or [::1].`,
    );
  }
  const port = parseInteger(match[2], "--http port", 0, 0, 65535);
  return { hostname: hostname.replace(/^\[|\]$/g, ""), port };
}
