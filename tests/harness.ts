// The one end-to-end harness: spawns the real server (deno run with the permission set from deno.json, or the
// compiled binary when MERO_MCP_BIN is set), connects the official client in a chosen era, and captures stderr.

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import assert from "assert";
import { fileURLToPath } from "node:url";

/** The repository root (where deno.json lives). */
export const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The two protocol eras the server must serve. */
export const ERAS = ["2025-11-25", "2026-07-28"] as const;
export type Era = typeof ERAS[number];

/** How to start the server process: `deno run -P=server main.ts`, or the binary under test. */
export function serverCommand(entry = "main.ts"): { command: string; args: string[] } {
  const binary = Deno.env.get("MERO_MCP_BIN");
  if (binary && entry === "main.ts") return { command: binary, args: [] };
  return { command: Deno.execPath(), args: ["run", "-P=server", "--quiet", entry] };
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

/** Deno's own cache directory, shared with the spawned servers so that a temp HOME does not re-download it. */
const DENO_DIR = Deno.env.get("DENO_DIR") ?? await denoDir();

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
  return spawnPiped(Deno.execPath(), ["run", "-P=server", "--quiet", entry, ...args], env);
}

/**
 * Writes JSON-RPC lines one at a time (waiting for each request's answer), then closes stdin; returns every
 * stdout line parsed, failing if any line is not JSON.
 */
export async function exchange(
  command: string,
  args: string[],
  env: Record<string, string>,
  messages: unknown[],
  extraLines: string[] = [],
): Promise<Record<string, unknown>[]> {
  const child = spawnPiped(command, args, env);
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const out: Record<string, unknown>[] = [];
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const readUntil = async (predicate: () => boolean) => {
    while (!predicate()) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        out.push(JSON.parse(line));
      }
    }
  };
  for (const line of extraLines) {
    await writer.write(encoder.encode(line + "\n"));
  }
  for (const message of messages) {
    await writer.write(encoder.encode(JSON.stringify(message) + "\n"));
    const id = (message as { id?: unknown }).id;
    if (id !== undefined) await readUntil(() => out.some((m) => m.id === id));
  }
  await writer.close();
  await readUntil(() => false);
  const status = await child.status;
  await child.stderr.cancel();
  assert.equal(status.code, 0, "stdin close exits 0");
  return out;
}
