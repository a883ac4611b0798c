// Process entry: flags and environment → config, state directory, node home scan; then the server runs in a
// worker with permissions computed here, and this thread drops its own and only relays stdio.

import denoJson from "./deno.json" with { type: "json" };
import { type Config, CONFIG_ENV_VARS, ConfigError, parseConfig } from "./src/node/config.ts";
import { log, setLogLevel } from "./src/log.ts";
import {
  DRAIN_GRACE_MS,
  type FromWorker,
  KEPT_EDGE_BYTES,
  MAX_LINE_BYTES,
  oversizedRequestId,
  type ToWorker,
} from "./src/server/relay.ts";
import { HELP_TEXT } from "./src/cli/help.ts";
import { writeStdout } from "./src/cli/report.ts";
import { readHandoff } from "./src/node/discovery.ts";
import { scanNodeHome } from "./src/node/node_home.ts";
import { prepareStateDir } from "./src/node/state_dir.ts";
import { readHttpToken } from "./src/server/http_token.ts";
import { concatBytes } from "./src/mero/bytes.ts";

/** Options of {@link start}; the product passes none but argv and env. */
export interface StartOptions {
  argv: string[];
  env: Record<string, string | undefined>;
  /**
   * The worker module to run. The product always runs {@link WORKER_MODULE}; a test-only entry may pass a module
   * that loads the real server plus a probe.
   */
  workerUrl?: URL;
}

const IS_WINDOWS = Deno.build.os === "windows";

/** The server's worker module: what {@link start} runs, and what `deno compile` must include (tools/compile.ts). */
export const WORKER_MODULE: URL = new URL("./src/server/index.ts", import.meta.url);

/** Runs mero-mcp. Resolves to an exit code for the sub-commands; stdio runs until stdin closes, HTTP mode until a signal. */
export async function start(options: StartOptions): Promise<number> {
  let config: Config;
  let httpToken: string | null;
  try {
    config = parseConfig(options.argv, options.env);
    config = await prepare(config, options.env);
    httpToken = await readHttpToken(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      log.error(error.message);
      return error.exitCode;
    }
    throw error;
  }
  setLogLevel(config.logLevel);
  switch (config.mode) {
    case "version":
      writeStdout(`mero-mcp ${denoJson.version}\n`);
      return 0;
    case "help":
      writeStdout(HELP_TEXT);
      return 0;
    case "doctor":
      return await (await import("./src/cli/commands.ts")).runDoctorCommand(config);
    case "check":
      return await (await import("./src/cli/commands.ts")).runCheckCommand(config);
    default:
      return await serve(
        config,
        options.workerUrl ?? WORKER_MODULE,
        httpToken,
      );
  }
}

/** Reads what only main may read: the password file, the state directory, the node home (names and URLs). */
async function prepare(config: Config, env: Record<string, string | undefined>): Promise<Config> {
  const passwordFile = env.CALIMERO_PASSWORD_FILE?.trim();
  if (passwordFile && config.mode !== "check") {
    if (config.password) {
      log.warn(
        "Both CALIMERO_PASSWORD and CALIMERO_PASSWORD_FILE are set; using CALIMERO_PASSWORD.",
      );
    } else {
      try {
        config = { ...config, password: (await Deno.readTextFile(passwordFile)).trim() };
      } catch (error) {
        throw new ConfigError(
          `Cannot read CALIMERO_PASSWORD_FILE "${passwordFile}": ${
            (error as Error).message
          }. Fix the path or its permissions.`,
          1,
        );
      }
    }
  }
  if (config.mode === "stdio" || config.mode === "http" || config.mode === "doctor") {
    await prepareStateDir(config.stateDir, {
      home: env.HOME?.trim() || env.USERPROFILE?.trim() || null,
      nodeHome: config.nodeHome,
    });
    // Only names and URLs leave this thread: each config.toml also holds that node's private key.
    config = { ...config, scannedNodes: await scanNodeHome(config.nodeHome) };
  }
  if (config.http?.port === 0) config = { ...config, http: freePort(config.http) };
  return config;
}

/**
 * `--http host:0` picks a free port here, so the worker is granted that one port and not the host's whole
 * range (a net grant without a port would also let it connect to, or listen on, any other local port).
 */
function freePort(http: { hostname: string; port: number }): { hostname: string; port: number } {
  const listener = Deno.listen({ hostname: http.hostname, port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return { ...http, port };
}

/**
 * The worker's permissions: the state dir, the node's address, loopback probe ports (plus the ports of the
 * scanned nodes and of a handoff file's node), the registry, the HTTP listen address; nothing else.
 */
function workerPermissions(
  config: Config,
  handoffUrl: string | null = null,
): Deno.PermissionOptionsObject {
  const net = new Set<string>();
  const addUrl = (value: string) => {
    const url = new URL(value);
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    net.add(`${url.hostname}:${port}`);
  };
  if (config.nodeUrl) addUrl(config.nodeUrl);
  if (config.registryUrl) addUrl(config.registryUrl);
  const loopbackPorts = new Set(config.probePorts);
  for (const url of [...config.scannedNodes.map((n) => n.url), handoffUrl]) {
    const port = url ? Number(new URL(url).port) : 0;
    if (port > 0) loopbackPorts.add(port);
  }
  for (const port of loopbackPorts) {
    for (const host of ["localhost", "127.0.0.1", "[::1]"]) net.add(`${host}:${port}`);
  }
  if (config.http) {
    const host = config.http.hostname.includes(":")
      ? `[${config.http.hostname}]`
      : config.http.hostname;
    net.add(`${host}:${config.http.port}`);
  }
  return {
    read: [config.stateDir],
    write: [config.stateDir],
    net: [...net],
    env: false,
    run: false,
    ffi: false,
    sys: false,
    import: false,
  };
}

/**
 * Spawns the server worker, drops this thread's permissions and relays stdio until stdin closes. In HTTP mode
 * (`config.http`) stdin is ignored and only a signal (or the worker's death) ends the process.
 */
async function serve(config: Config, workerUrl: URL, httpToken: string | null): Promise<number> {
  const worker = new Worker(workerUrl, {
    type: "module",
    name: "mero-mcp-server",
    deno: { permissions: workerPermissions(config, (await readHandoff(config.stateDir))?.nodeUrl) },
  });

  const post = (message: ToWorker) => worker.postMessage(message);
  const stdout = Deno.stdout.writable.getWriter();
  const encoder = new TextEncoder();
  let lastWrite: Promise<void> = Promise.resolve();
  // Each write is reported back: the worker paces app calls by how much output is still queued here.
  const writeBytes = (bytes: Uint8Array, report = false) => {
    const size = bytes.length;
    lastWrite = stdout.write(bytes).then(
      () => void (report && post({ type: "written", bytes: size })),
      () => {},
    );
  };
  const writeLine = (line: string) => writeBytes(encoder.encode(line + "\n"));

  const exited = Promise.withResolvers<number>();
  worker.onmessage = (event: MessageEvent<FromWorker>) => {
    const message = event.data;
    if (message.type === "out") writeBytes(message.bytes, true);
    else if (message.type === "ready") dropPermissions();
    else if (message.type === "drained") exited.resolve(0);
    else if (message.type === "fatal") {
      log.error(message.message);
      exited.resolve(1);
    }
  };
  worker.onerror = (event) => {
    event.preventDefault();
    log.error(`the server worker died: ${event.message}`);
    exited.resolve(1);
  };
  post(httpToken === null ? { type: "config", config } : { type: "config", config, httpToken });

  for (
    const signal of IS_WINDOWS ? ["SIGINT", "SIGBREAK"] as const : ["SIGINT", "SIGTERM"] as const
  ) {
    Deno.addSignalListener(signal, () => exited.resolve(0));
  }

  if (!config.http) {
    relayStdin(post, writeLine).then(() => {
      // The worker answers what is in flight, then says "drained"; never wait longer than its grace.
      setTimeout(() => exited.resolve(0), DRAIN_GRACE_MS + 500);
    }, (error) => {
      log.error(`reading stdin failed: ${error}`);
      exited.resolve(1);
    });
  }

  const code = await exited.promise;
  await lastWrite;
  return code;
}

/**
 * Revokes this thread's read, write, net and env permissions. Called once the worker has loaded its modules:
 * loading a module graph reads files under the main thread's permissions.
 */
function dropPermissions(): void {
  for (const name of ["read", "write", "net", "env"] as const) {
    Deno.permissions.revokeSync({ name });
  }
}

/**
 * Splits stdin into lines for the worker. A line over {@link MAX_LINE_BYTES} is dropped and answered with an error,
 * under the request's own id when its start or end shows it (so the client is not left waiting for its timeout).
 */
async function relayStdin(
  post: (m: ToWorker) => void,
  writeLine: (l: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  let oversized = false;
  /** Of a line too large to keep: its first and (so far) last KEPT_EDGE_BYTES. */
  let head: Uint8Array = new Uint8Array(0);
  let tail: Uint8Array = new Uint8Array(0);
  const finishLine = () => {
    if (oversized) {
      writeLine(JSON.stringify({
        jsonrpc: "2.0",
        id: oversizedRequestId(decoder.decode(head), decoder.decode(tail)),
        error: {
          code: -32600,
          message: `Request too large: a message may be at most ${MAX_LINE_BYTES} bytes.`,
        },
      }));
    } else if (size > 0) {
      const bytes = concatBytes(parts, size);
      post({ type: "line", line: decoder.decode(bytes).replace(/\r$/, "") });
    }
    parts = [];
    size = 0;
    oversized = false;
  };
  for await (const chunk of Deno.stdin.readable) {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!oversized) {
        size += end - start;
        if (end > start) parts.push(chunk.slice(start, end));
        if (size > MAX_LINE_BYTES) {
          oversized = true;
          head = edgeBytes(parts, "first");
          tail = edgeBytes(parts, "last");
          parts = [];
        }
      } else if (end > start) tail = edgeBytes([tail, chunk.subarray(start, end)], "last");
      if (newline === -1) break;
      finishLine();
      start = newline + 1;
    }
  }
  if (size > 0 || oversized) finishLine();
  post({ type: "close" });
}

/** The first or last KEPT_EDGE_BYTES of the bytes `parts` hold together, copying only those. */
function edgeBytes(parts: Uint8Array[], which: "first" | "last"): Uint8Array {
  const ordered = which === "first" ? parts : [...parts].reverse();
  const picked: Uint8Array[] = [];
  let size = 0;
  for (const part of ordered) {
    if (size >= KEPT_EDGE_BYTES) break;
    const take = Math.min(part.length, KEPT_EDGE_BYTES - size);
    picked.push(which === "first" ? part.subarray(0, take) : part.subarray(part.length - take));
    size += take;
  }
  return concatBytes(which === "first" ? picked : picked.reverse(), size);
}

if (import.meta.main) {
  const env: Record<string, string | undefined> = {};
  for (const name of CONFIG_ENV_VARS) env[name] = Deno.env.get(name);
  Deno.exit(await start({ argv: Deno.args, env }));
}
