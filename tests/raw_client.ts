// The one raw JSON-RPC driver over stdio: spawns the real server (the same command as tests/harness.ts), pipelines
// lines into stdin, and records every stdout line, so a test can send what no SDK client would and count responses
// per id exactly. The reliability suites drive it directly; `exchange` is the short form for a fixed script.

import assert from "assert";
import { serverCommand, spawnPiped } from "./harness.ts";

/** A JSON-RPC message as read from stdout. */
export type Message = Record<string, unknown>;

/** A running server driven by raw lines. */
export interface RawServer {
  readonly pid: number;
  /** Every stdout line, in order (without its newline). */
  readonly lines: string[];
  /** Stdout lines that are not JSON objects with `jsonrpc: "2.0"`. */
  readonly strayLines: string[];
  /** Notifications and server-to-client requests the server sent. */
  readonly fromServer: Message[];
  /** Responses received for an id (the key is `JSON.stringify(id)`, so 1 and "1" differ). */
  responses(id: unknown): Message[];
  /** Every response whose id is null. */
  readonly nullIdResponses: Message[];
  /** Writes one line (a newline is appended). Writes are queued in order. */
  sendLine(line: string): Promise<void>;
  /** Writes one message as a JSON line. */
  send(message: unknown): Promise<void>;
  /** Sends a request and resolves with its response (throws after `timeoutMs`). */
  request(method: string, params?: unknown, timeoutMs?: number): Promise<Message>;
  /** Resolves with the first response for `id` (throws after `timeoutMs`). */
  response(id: unknown, timeoutMs?: number): Promise<Message>;
  /** Resolves once `predicate` holds (checked after every stdout or stderr chunk); throws after `timeoutMs`. */
  until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void>;
  /** A fresh request id (a number). */
  nextId(): number;
  /** Whether `id` came from {@link RawServer.nextId} or {@link RawServer.request}. */
  isOwnId(id: unknown): boolean;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Null while running, else the exit status. */
  exitCode(): number | null;
  /** Resident set size in KiB from /proc (Linux), or null where unavailable. */
  rssKiB(): number | null;
  /** Closes stdin and waits for the exit; resolves with the exit code. */
  close(): Promise<number>;
  /** Sends a signal; resolves with the exit status code once the process is gone. */
  kill(signal?: Deno.Signal): Promise<number>;
}

/** Options of {@link startServer}. */
export interface StartOptions {
  env: Record<string, string>;
  /** A test-only entry instead of main.ts (e.g. a probe entry). */
  entry?: string;
  args?: string[];
}

const encoder = new TextEncoder();
const FIRST_ID = 1_000_000;

/** Spawns the real server with a clean environment; nothing is sent yet. */
export function startServer(options: StartOptions): RawServer {
  const { command, args } = serverCommand(options.entry);
  const child = spawnPiped(command, [...args, ...(options.args ?? [])], options.env);
  const lines: string[] = [];
  const strayLines: string[] = [];
  const fromServer: Message[] = [];
  const nullIdResponses: Message[] = [];
  const byId = new Map<string, Message[]>();
  const waiters = new Set<() => void>();
  let stderrText = "";
  let code: number | null = null;
  let id = FIRST_ID;

  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };

  const record = (line: string) => {
    lines.push(line);
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      strayLines.push(line);
      return;
    }
    if (
      typeof message !== "object" || message === null || Array.isArray(message) ||
      (message as Message).jsonrpc !== "2.0"
    ) {
      strayLines.push(line);
      return;
    }
    const m = message as Message;
    if ("method" in m) fromServer.push(m);
    else if (m.id === null) nullIdResponses.push(m);
    else {
      const key = JSON.stringify(m.id);
      const list = byId.get(key) ?? [];
      list.push(m);
      byId.set(key, list);
    }
  };

  const stdoutDone = (async () => {
    // A line of many megabytes arrives in many chunks: each chunk is searched for the newline, not the whole line.
    let pieces: string[] = [];
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      let start = 0;
      let newline;
      while ((newline = chunk.indexOf("\n", start)) !== -1) {
        pieces.push(chunk.slice(start, newline));
        record(pieces.join(""));
        pieces = [];
        start = newline + 1;
      }
      if (start < chunk.length) pieces.push(chunk.slice(start));
      notify();
    }
    if (pieces.length > 0) record(pieces.join(""));
    notify();
  })();
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderrText += chunk;
      notify();
    }
  })();
  const status = child.status.then(async (s) => {
    await Promise.all([stdoutDone, stderrDone]).catch(() => {});
    code = s.code;
    notify();
    return s.code;
  });

  const writer = child.stdin.getWriter();
  let writing: Promise<void> = Promise.resolve();
  const sendLine = (line: string) => {
    writing = writing.then(() => writer.write(encoder.encode(line + "\n"))).catch(() => {});
    return writing;
  };

  const until = (predicate: () => boolean, timeoutMs: number, what: string) => {
    if (predicate()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (predicate()) {
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        } else if (code !== null) {
          clearTimeout(timer);
          waiters.delete(check);
          reject(new Error(`the server exited (${code}) while waiting for ${what}`));
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      waiters.add(check);
    });
  };

  const responses = (key: unknown) => byId.get(JSON.stringify(key)) ?? [];
  const response = async (key: unknown, timeoutMs = 15_000) => {
    await until(
      () => responses(key).length > 0,
      timeoutMs,
      `the response to ${JSON.stringify(key)}`,
    );
    return responses(key)[0];
  };

  const server: RawServer = {
    pid: child.pid,
    lines,
    strayLines,
    fromServer,
    nullIdResponses,
    responses,
    sendLine,
    send: (message) => sendLine(JSON.stringify(message)),
    async request(method, params, timeoutMs = 15_000) {
      const requestId = ++id;
      await server.send({ jsonrpc: "2.0", id: requestId, method, ...(params ? { params } : {}) });
      return await response(requestId, timeoutMs);
    },
    response,
    until,
    nextId: () => ++id,
    isOwnId: (value) => typeof value === "number" && value > FIRST_ID && value <= id,
    stderr: () => stderrText,
    exitCode: () => code,
    rssKiB() {
      try {
        const text = Deno.readTextFileSync(`/proc/${child.pid}/status`);
        const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(text);
        return match ? Number(match[1]) : null;
      } catch {
        return null;
      }
    },
    async close() {
      await writing;
      await writer.close().catch(() => {});
      return await status;
    },
    async kill(signal = "SIGKILL") {
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
      await writer.abort().catch(() => {});
      return await status;
    },
  };
  return server;
}

/** The 2025-era handshake: `initialize`, then `notifications/initialized`; returns the initialize result. */
export async function initialize(server: RawServer, timeoutMs = 15_000): Promise<Message> {
  const answer = await server.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "reliability", version: "1" },
  }, timeoutMs);
  assert.ok("result" in answer, `initialize answered: ${JSON.stringify(answer)}`);
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return answer.result as Message;
}

/** A tool result as the wire carries it. */
export interface WireToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** Calls a tool and returns its result; a protocol error fails the assertion. */
export async function callTool(
  server: RawServer,
  name: string,
  args: Record<string, unknown>,
  timeoutMs = 15_000,
): Promise<WireToolResult> {
  const answer = await server.request("tools/call", { name, arguments: args }, timeoutMs);
  assert.ok("result" in answer, `tools/call ${name} answered a result: ${JSON.stringify(answer)}`);
  return answer.result as WireToolResult;
}

/** The first text block of a tool result: an app method's value (a second block says whose data it is). */
export function valueText(result: WireToolResult): string {
  return (result.content ?? []).find((c) => c.type === "text")?.text ?? "";
}

/** Text of the text blocks of a tool result, joined. */
export function resultText(result: WireToolResult): string {
  return (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text ?? "").join(
    "\n",
  );
}

/**
 * Why a message is not a well-formed JSON-RPC 2.0 response, or null when it is: `jsonrpc` "2.0", an id that is a
 * string, number or null, and exactly one of `result` (an object) or `error` (integer code, string message).
 */
export function malformedResponse(m: Message): string | null {
  if (m.jsonrpc !== "2.0") return "jsonrpc is not 2.0";
  if (!("id" in m)) return "no id";
  if (m.id !== null && typeof m.id !== "string" && typeof m.id !== "number") return "bad id type";
  const hasResult = "result" in m;
  const hasError = "error" in m;
  if (hasResult === hasError) return "not exactly one of result and error";
  if (hasResult) {
    return typeof m.result === "object" && m.result !== null && !Array.isArray(m.result)
      ? null
      : "result is not an object";
  }
  const error = m.error as Record<string, unknown> | null;
  if (typeof error !== "object" || error === null) return "error is not an object";
  if (!Number.isInteger(error.code)) return "error.code is not an integer";
  if (typeof error.message !== "string") return "error.message is not a string";
  return null;
}

/** Prints one line of a suite's counts and timings on stderr (lint forbids console in the product and tests). */
export function report(suite: string, text: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`[${suite}] ${text}\n`));
}

/**
 * Writes `extraLines` as they are, then each message, waiting for each request's answer; then closes stdin and
 * checks the exit code is 0. Returns every stdout line parsed (a line that is not JSON fails the test).
 */
export async function exchange(
  env: Record<string, string>,
  messages: unknown[],
  extraLines: string[] = [],
): Promise<Message[]> {
  const server = startServer({ env });
  for (const line of extraLines) await server.sendLine(line);
  for (const message of messages) {
    await server.send(message);
    const id = (message as { id?: unknown }).id;
    if (id !== undefined) await server.response(id);
  }
  assert.equal(await server.close(), 0, "stdin close exits 0");
  return server.lines.map((line) => JSON.parse(line));
}
