// Process entry: flags and environment → config, state directory, node home scan; then the server runs in a
// worker with permissions computed here, which serves stdio itself; this thread drops its own permissions and waits.

import denoJson from "./deno.json" with { type: "json" };
import { type Config, CONFIG_ENV_VARS, ConfigError, parseConfig } from "./src/config/config.ts";
import { log, setLogLevel } from "./src/lib/log.ts";
import { DRAIN_GRACE_MS, type FromWorker, type ToWorker } from "./src/server/relay.ts";
import { HELP_TEXT, TERMINAL_HINT } from "./src/cli/help.ts";
import { writeStdout } from "./src/cli/report.ts";
import { readHandoff } from "./src/node/discovery.ts";
import { scanNodeHome } from "./src/config/node_home.ts";
import { prepareStateDir } from "./src/config/state_dir.ts";
import { readHttpToken } from "./src/config/http_token.ts";

/** Options of {@link start}; the product passes none but argv and env. */
export interface StartOptions {
  argv: string[];
  env: Record<string, string | undefined>;
  /**
   * The worker module to run. The product always runs {@link WORKER_MODULE}; a test-only entry may pass a module
   * that loads the real server plus a probe.
   */
  workerUrl?: URL;
  /** Whether stdin is a terminal (a person started it by hand); default: asked of the runtime. */
  stdinIsTerminal?: boolean;
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
    case "login":
      return await (await import("./src/cli/login.ts")).runLogin(config, options.env);
    case "watch":
      if (config.channel === null) {
        // A plugin's monitor passes its "contexts" setting as is; left empty, there is nothing to follow.
        log.info("watch: no context named, so nothing to watch.");
        return 0;
      }
      return await serve(config, options.workerUrl ?? WORKER_MODULE, null);
    default:
      if (!config.http && (options.stdinIsTerminal ?? Deno.stdin.isTerminal())) {
        log.info(TERMINAL_HINT);
      }
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
  if (["stdio", "http", "doctor", "watch", "login"].includes(config.mode)) {
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
  // The nodes named besides it (CALIMERO_NODES): exactly their addresses.
  for (const node of config.nodes) addUrl(node.url);
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
    // Code mode's runner (src/script/): this executable alone, started with no permission of its own. A watch runs
    // no script.
    run: config.mode === "watch" ? false : [Deno.execPath()],
    ffi: false,
    sys: false,
    import: false,
  };
}

/**
 * Spawns the server worker, which serves stdio itself, drops this thread's permissions once the worker has loaded,
 * and waits: for the worker to say it drained after stdin closed, a signal, or the worker's death. In HTTP mode
 * (`config.http`) stdin is ignored and only a signal (or the worker's death) ends the process; a watch ends on a
 * signal or when its stdout is closed (the worker says "drained").
 */
async function serve(config: Config, workerUrl: URL, httpToken: string | null): Promise<number> {
  const worker = new Worker(workerUrl, {
    type: "module",
    name: "mero-mcp-server",
    deno: { permissions: workerPermissions(config, (await readHandoff(config.stateDir))?.nodeUrl) },
  });

  const post = (message: ToWorker) => worker.postMessage(message);
  const exited = Promise.withResolvers<number>();
  worker.onmessage = (event: MessageEvent<FromWorker>) => {
    const message = event.data;
    if (message.type === "ready") dropPermissions();
    else if (message.type === "stdin-closed") {
      // The worker answers what is in flight, then says "drained"; never wait longer than its grace.
      setTimeout(() => exited.resolve(0), DRAIN_GRACE_MS + 500);
    } else if (message.type === "drained") exited.resolve(0);
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
  // The worker reads stdin and writes stdout itself: no hop through this thread for each message.
  post(
    httpToken === null
      ? { type: "config", config, ownStdio: true }
      : { type: "config", config, httpToken, ownStdio: true },
  );

  for (
    const signal of IS_WINDOWS ? ["SIGINT", "SIGBREAK"] as const : ["SIGINT", "SIGTERM"] as const
  ) {
    Deno.addSignalListener(signal, () => exited.resolve(0));
  }

  return await exited.promise;
}

/**
 * Revokes this thread's read, write, net and env permissions. Called once the worker has loaded its modules:
 * loading a module graph reads files under the main thread's permissions.
 */
function dropPermissions(): void {
  for (const name of ["read", "write", "net", "env", "run"] as const) {
    Deno.permissions.revokeSync({ name });
  }
}

if (import.meta.main && Deno.args[0] === "--script-runner") {
  // A compiled executable started as code mode's runner: it drops every permission before it reads the script.
  const { runRunner } = await import("./src/script/runner.ts");
  await runRunner();
  Deno.exit(0);
} else if (import.meta.main) {
  const env: Record<string, string | undefined> = {};
  for (const name of CONFIG_ENV_VARS) env[name] = Deno.env.get(name);
  Deno.exit(await start({ argv: Deno.args, env }));
}
