// The one end-to-end harness: spawns the real server (deno run with the permission set from deno.json, or the
// compiled binary when MERO_MCP_BIN is set), connects the official client in a chosen era, and captures stderr.

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import assert from "assert";
import { fileURLToPath } from "node:url";
import { SERVER_RUN_ARGS } from "../tools/run_args.ts";

/** The repository root (where deno.json lives). */
export const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The two protocol eras the server must serve. */
export const ERAS = ["2025-11-25", "2026-07-28"] as const;
export type Era = typeof ERAS[number];

/** How to start the server process: `deno run` with tools/run_args.ts, or the binary under test. */
export function serverCommand(entry = "main.ts"): { command: string; args: string[] } {
  const binary = Deno.env.get("MERO_MCP_BIN");
  if (binary && entry === "main.ts") return { command: binary, args: [] };
  return { command: Deno.execPath(), args: [...SERVER_RUN_ARGS, entry] };
}

/** Variables Deno itself needs (cache location, certificates, proxies); none of them configures mero-mcp. */
const PASSED_THROUGH = [
  "DENO_DIR",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "NPM_CONFIG_REGISTRY",
  "SystemRoot",
  "TEMP",
  "TMP",
];

/**
 * Deno's own cache directory, shared with the spawned servers so that a temp HOME does not re-download it. Asked of
 * `deno info` once per test process: the answer is kept in the environment, which every test module shares.
 */
const DENO_DIR = Deno.env.get("DENO_DIR") ?? await denoDir();
Deno.env.set("DENO_DIR", DENO_DIR);

async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
}

const homes: string[] = [];
globalThis.addEventListener("unload", () => {
  for (const home of homes) {
    try {
      Deno.removeSync(home, { recursive: true });
    } catch {
      // already gone, or still in use on Windows: the OS cleans temp dirs
    }
  }
});

/** A fresh, isolated environment: temp HOME, state dir and node home, and a probe port nothing listens on. */
export async function isolatedEnv(
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  const home = await Deno.makeTempDir({ prefix: "mero-mcp-home-" });
  homes.push(home);
  const env: Record<string, string> = {
    HOME: home,
    USERPROFILE: home,
    PATH: Deno.env.get("PATH") ?? "",
    CALIMERO_MCP_STATE_DIR: `${home}/state`,
    CALIMERO_NODE_HOME: `${home}/calimero`,
    CALIMERO_MCP_PROBE_PORTS: String(await unusedPort()),
    DENO_DIR,
    ...extra,
  };
  for (const name of PASSED_THROUGH) {
    const value = Deno.env.get(name);
    if (value !== undefined && !(name in env)) env[name] = value;
  }
  return env;
}

/**
 * An {@link isolatedEnv} whose temp home is removed as soon as a test is done with it: by `cleanup()`, or when the
 * `await using` block that holds it ends.
 */
export async function tempHome(
  extra: Record<string, string> = {},
): Promise<{ env: Record<string, string>; cleanup(): Promise<void> } & AsyncDisposable> {
  const env = await isolatedEnv(extra);
  const cleanup = () => Deno.remove(env.HOME, { recursive: true }).catch(() => {});
  return { env, cleanup, [Symbol.asyncDispose]: cleanup };
}

/** A loopback port that was free a moment ago. */
export async function unusedPort(): Promise<number> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await Promise.resolve();
  return port;
}

/** A connected client plus what the server wrote to stderr. */
export interface Connection {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

/** Options of {@link connect}. */
export interface ConnectOptions {
  era: Era;
  env?: Record<string, string>;
  args?: string[];
  entry?: string;
  /** Called with the refreshed tool list on every (client-debounced) tools/list_changed notification. */
  onToolsChanged?: (tools: { name: string }[]) => void;
  /** Called on every resources/list_changed notification. */
  onResourcesChanged?: () => void;
  /** Called on every prompts/list_changed notification. */
  onPromptsChanged?: () => void;
}

/** Spawns the real server and connects the official client over stdio in the given era. */
export async function connect(options: ConnectOptions): Promise<Connection> {
  const { command, args } = serverCommand(options.entry);
  const transport = new StdioClientTransport({
    command,
    args: [...args, ...(options.args ?? [])],
    env: options.env ?? await isolatedEnv(),
    cwd: ROOT,
    stderr: "pipe",
  });
  let stderr = "";
  const decoder = new TextDecoder();
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += decoder.decode(chunk));
  // Asking for listChanged makes the client open the 2026-07-28 subscriptions/listen stream; the
  // observable handlers are set right after connecting.
  const noop = () => {};
  const listChanged = {
    ...(options.onToolsChanged ? { tools: { onChanged: noop } } : {}),
    ...(options.onResourcesChanged ? { resources: { onChanged: noop } } : {}),
    ...(options.onPromptsChanged ? { prompts: { onChanged: noop } } : {}),
  };
  const client = new Client(
    { name: "mero-mcp-tests", version: "1.0.0" },
    {
      ...(options.era === "2026-07-28"
        ? { versionNegotiation: { mode: { pin: "2026-07-28" } } }
        : {}),
      listChanged,
    },
  );
  await client.connect(transport);
  if (options.onToolsChanged) {
    client.setNotificationHandler("notifications/tools/list_changed", async () => {
      const { tools } = await client.listTools(undefined, { cacheMode: "refresh" });
      options.onToolsChanged!(tools);
    });
  }
  if (options.onResourcesChanged) {
    client.setNotificationHandler("notifications/resources/list_changed", () => {
      options.onResourcesChanged!();
    });
  }
  if (options.onPromptsChanged) {
    client.setNotificationHandler("notifications/prompts/list_changed", () => {
      options.onPromptsChanged!();
    });
  }
  return {
    client,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** Text of the first content block of a tool result. */
export function firstText(result: { content?: unknown }): string {
  const content = result.content as { type: string; text?: string }[] | undefined;
  return content?.find((c) => c.type === "text")?.text ?? "";
}

/** A tool result as the client returns it. */
export type CallResult = Awaited<ReturnType<Client["callTool"]>>;

/** Calls a tool and returns its result as is (an `isError` result included). */
export async function callTool(
  conn: Connection,
  name: string,
  args: Record<string, unknown> = {},
  options?: Parameters<Client["callTool"]>[1],
): Promise<CallResult> {
  return await conn.client.callTool({ name, arguments: args }, options);
}

/** Calls a tool that must succeed; its first text block. */
export async function callText(
  conn: Connection,
  name: string,
  args: Record<string, unknown> = {},
  options?: Parameters<Client["callTool"]>[1],
): Promise<string> {
  const result = await callTool(conn, name, args, options);
  assert.ok(!result.isError, `${name} failed: ${firstText(result)}`);
  return firstText(result);
}

/** Calls a tool that must succeed and answer JSON; the parsed JSON. */
export async function callJson(
  conn: Connection,
  name: string,
  args: Record<string, unknown> = {},
  options?: Parameters<Client["callTool"]>[1],
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  return JSON.parse(await callText(conn, name, args, options));
}

/** Calls a tool that must succeed; its JSON, or its text when it is not JSON (a sentence). */
export async function callOk(
  conn: Connection,
  name: string,
  args: Record<string, unknown> = {},
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const text = await callText(conn, name, args);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Calls a tool that must fail; the text of its `Error: …` block. */
export async function callError(
  conn: Connection,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const result = await callTool(conn, name, args);
  assert.equal(result.isError, true, `${name} should fail, got: ${firstText(result)}`);
  const text = firstText(result);
  assert.ok(text.startsWith("Error: "), text);
  return text;
}

/** Resolves when `test` holds, checking every 10 ms for at most `ms`; fails naming `what` otherwise. */
export async function until(test: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Runs the server as a command (stdin empty) and collects its exit code and output. */
export async function runServer(args: string[], env: Record<string, string>) {
  const { command, args: base } = serverCommand();
  const out = await new Deno.Command(command, {
    args: [...base, ...args],
    env,
    clearEnv: true,
    cwd: ROOT,
    stdin: "null",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** The 2025-era opening: `initialize` (id 1) and the `initialized` notification. */
export const LEGACY_OPENING = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
];

/** Spawns a process in the repository with exactly `env` and every stdio stream piped. */
export function spawnPiped(
  command: string,
  args: string[],
  env: Record<string, string>,
): Deno.ChildProcess {
  return new Deno.Command(command, {
    args,
    env,
    clearEnv: true,
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Spawns a test-only entry (tests/sandbox/…) with the server's permission set, stdio piped. */
export function spawnEntry(
  entry: string,
  env: Record<string, string>,
  args: string[] = [],
): Deno.ChildProcess {
  return spawnPiped(Deno.execPath(), [...SERVER_RUN_ARGS, entry, ...args], env);
}

/** A client that can be asked (form elicitation) and answers with `answer`, recording each question. */
export async function askingClient(
  era: typeof ERAS[number],
  env: Record<string, string>,
  answer: () => {
    action: "accept" | "decline" | "cancel";
    content?: Record<string, string | number | boolean>;
  },
  args: string[] = [],
) {
  const { command, args: base } = serverCommand();
  const transport = new StdioClientTransport({
    command,
    args: [...base, ...args],
    env,
    cwd: ROOT,
    stderr: "pipe",
  });
  const client = new Client(
    { name: "asking-client", version: "1" },
    {
      capabilities: { elicitation: { form: {} } },
      ...(era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
    },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push((request.params as { message: string }).message);
    return Promise.resolve(answer());
  });
  await client.connect(transport);
  return { client, asked };
}
