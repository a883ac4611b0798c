// A bare JSON-RPC-over-stdio client for benchmarks: spawns a server process and times each request from
// the write of its line to the arrival of its answer's line (parsing happens after the clock stops).

import { isolatedEnv, spawnPiped } from "../harness.ts";
import { concatBytes } from "../../src/lib/bytes.ts";
import { SERVER_RUN_ARGS } from "../../tools/run_args.ts";

/** One answered request: the parsed message, its line's size in bytes, the round trip in ms, its arrival. */
export interface Answer {
  // deno-lint-ignore no-explicit-any -- JSON-RPC answers are read ad hoc by each benchmark.
  message: any;
  bytes: number;
  ms: number;
  /** `performance.now()` when the answer's last byte arrived. */
  at: number;
}

/** A spawned server driven line by line. */
export interface StdioServer {
  pid: number;
  /** `performance.now()` just before the process was spawned. */
  spawnedAt: number;
  /** Sends a request and resolves with its answer. */
  request(method: string, params?: unknown): Promise<Answer>;
  /** Sends a notification (no answer). */
  notify(method: string, params?: unknown): Promise<void>;
  /** Resolves with the arrival time (`performance.now()`) of the next notification of `method`. */
  nextNotification(method: string, timeoutMs: number): Promise<number>;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** inline_main.ts only: heap used after a full GC (needs `--v8-flags=--expose-gc`). */
  heap(): Promise<{ heapUsed: number; rss: number; collected: boolean }>;
  /** Closes stdin and waits for the exit (kills it after `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

/** The protocol revision the bare client speaks (the 2025 era: an `initialize` handshake). */
export const PROTOCOL_VERSION = "2025-11-25";

/**
 * The deno command that runs `entry` with the server's permission set from deno.json (as the harness does);
 * `extraFlags` (e.g. `--cpu-prof`) go before the entry.
 */
export function denoArgs(entry: string, extraFlags: string[] = []): string[] {
  // The product's entries run as it ships (tools/run_args.ts); B1's bare server and B3's pipe floor run plain.
  const plain = entry.endsWith("baseline_server.ts") || entry.endsWith("pipe_floor.ts");
  const run = plain ? ["run", "-P=server", "--quiet"] : SERVER_RUN_ARGS;
  return [...run, ...extraFlags, entry];
}

/** Spawns `deno run -P=server <entry>` in an isolated environment (it shares this Deno cache) plus `env`. */
export async function spawnServer(
  entry: string,
  env: Record<string, string> = {},
  extraFlags: string[] = [],
  scriptArgs: string[] = [],
): Promise<StdioServer> {
  const fullEnv = await isolatedEnv(env);
  const spawnedAt = performance.now();
  const child = spawnPiped(
    Deno.execPath(),
    [...denoArgs(entry, extraFlags), ...scriptArgs],
    fullEnv,
  );
  return drive(child, spawnedAt, fullEnv.HOME);
}

function drive(child: Deno.ChildProcess, spawnedAt: number, home: string): StdioServer {
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const pending = new Map<number, { sentAt: number; resolve: (a: Answer) => void }>();
  const waiters: { method: string; resolve: (at: number) => void }[] = [];
  const early: { method: string; at: number }[] = [];
  const heapWaiters: ((value: { heapUsed: number; rss: number; collected: boolean }) => void)[] =
    [];
  let nextId = 1;
  let stderrText = "";

  const onLine = (bytes: Uint8Array, at: number) => {
    const text = decoder.decode(bytes);
    const message = JSON.parse(text);
    if (message.bench !== undefined) {
      heapWaiters.shift()?.(message.bench);
      return;
    }
    if (message.id !== undefined && !("method" in message)) {
      const entry = pending.get(message.id);
      if (entry) {
        pending.delete(message.id);
        entry.resolve({ message, bytes: bytes.length, ms: at - entry.sentAt, at });
      }
    } else if (typeof message.method === "string" && message.id === undefined) {
      const index = waiters.findIndex((w) => w.method === message.method);
      if (index >= 0) waiters.splice(index, 1)[0].resolve(at);
      else early.push({ method: message.method, at });
    }
  };

  const readStdout = (async () => {
    let parts: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of child.stdout) {
      const at = performance.now();
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(10, start);
        if (newline === -1) {
          parts.push(chunk.subarray(start));
          size += chunk.length - start;
          break;
        }
        parts.push(chunk.subarray(start, newline));
        size += newline - start;
        onLine(concatBytes(parts, size), at);
        parts = [];
        size = 0;
        start = newline + 1;
      }
    }
  })();
  const readStderr = (async () => {
    for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderrText += text;
    }
  })();

  const write = (message: unknown) => writer.write(encoder.encode(JSON.stringify(message) + "\n"));

  return {
    pid: child.pid,
    spawnedAt,
    request(method, params) {
      const id = nextId++;
      const line = encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
      return new Promise<Answer>((resolve, reject) => {
        pending.set(id, { sentAt: performance.now(), resolve });
        writer.write(line).catch(reject);
      });
    },
    notify: (method, params) => write({ jsonrpc: "2.0", method, params }),
    nextNotification(method, timeoutMs) {
      const index = early.findIndex((e) => e.method === method);
      if (index >= 0) return Promise.resolve(early.splice(index, 1)[0].at);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const at = waiters.findIndex((w) => w.resolve === done);
          if (at >= 0) waiters.splice(at, 1);
          reject(new Error(`no ${method} within ${timeoutMs} ms`));
        }, timeoutMs);
        const done = (at: number) => {
          clearTimeout(timer);
          resolve(at);
        };
        waiters.push({ method, resolve: done });
      });
    },
    stderr: () => stderrText,
    heap() {
      return new Promise((resolve, reject) => {
        heapWaiters.push(resolve);
        writer.write(encoder.encode('{"bench":"heap"}\n')).catch(reject);
      });
    },
    async close(graceMs = 3000) {
      await writer.close().catch(() => {});
      let timer: ReturnType<typeof setTimeout> | undefined;
      const exited = await Promise.race([
        child.status.then(() => true),
        new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), graceMs)),
      ]);
      clearTimeout(timer);
      if (!exited) {
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
        await child.status;
      }
      await Promise.all([readStdout.catch(() => {}), readStderr.catch(() => {})]);
      await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  };
}

/** Performs the 2025-era handshake; resolves with the `initialize` answer. */
export async function initialize(server: StdioServer): Promise<Answer> {
  const answer = await server.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "mero-mcp-bench", version: "1.0.0" },
  });
  if (answer.message.error) {
    throw new Error(`initialize failed: ${JSON.stringify(answer.message.error)}`);
  }
  await server.notify("notifications/initialized");
  return answer;
}

/** Calls a tool and fails loudly when the call errs (a benchmark of failures measures nothing). */
export async function callTool(
  server: StdioServer,
  name: string,
  args: Record<string, unknown>,
): Promise<Answer> {
  const answer = await server.request("tools/call", { name, arguments: args });
  const result = answer.message.result;
  if (answer.message.error || result?.isError) {
    const why = answer.message.error
      ? JSON.stringify(answer.message.error)
      : result.content?.[0]?.text;
    throw new Error(`tools/call ${name} failed: ${why}`);
  }
  return answer;
}

/** The JSON text of a tool result's first text block, parsed. */
export function resultJson(answer: Answer): Record<string, unknown> {
  return JSON.parse(answer.message.result.content[0].text);
}

/** The 2026-07-28 revision: no handshake; every request carries the protocol version and client in `_meta`. */
export const MODERN_VERSION = "2026-07-28";

/** Sends a 2026-07-28 request (`_meta`-enveloped params). */
export function modernRequest(
  server: StdioServer,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Answer> {
  return server.request(method, {
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
      "io.modelcontextprotocol/clientInfo": { name: "mero-mcp-bench", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  });
}
