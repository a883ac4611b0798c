// The script runner: a child process of the server's own executable that runs one agent's script and exits. It has
// no permission at all (started without any under `deno run`; the compiled executable drops the ones it was built
// with before reading the script), its heap is capped by the V8 flag it is started with, a watch thread reports its
// whole memory (array buffers and all) past the cap it is given, and the server kills it at the script's wall time or
// that report. Its only way out is its stdin and stdout, one JSON message per line: the server answers the calls it
// asks for (after every check a direct call goes through) and takes whatever it writes for untrusted. The script's
// types are stripped here (transpile.ts), inside the wall time, not in the server.

import { stripTypes } from "./transpile.ts";

/** What the server sends first: the script as the agent wrote it, the app methods it may call, its memory cap. */
interface Start {
  t: "start";
  /** The body of `async function (calimero, console) { … }`, in TypeScript. */
  code: string;
  /** App slug → the methods of that app the script may call. */
  apps: Record<string, string[]>;
  /** The process's resident memory above which the watch reports it (MiB). */
  memoryMb: number;
  /** The script's wall time: the server kills the process then, and past it the process ends itself. */
  wallMs: number;
}

/** The server's answer to one call. */
interface Answer {
  t: "answer";
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}

// Everything the runner needs is taken before the script runs: the script may replace globals, never these.
const stdout = Deno.stdout;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const stringify = JSON.stringify;
const parse = JSON.parse;
const freeze = Object.freeze;
const create = Object.create;
const PromiseCtor = Promise;
const exit = Deno.exit;

/** Writes one message as a line; the server reads each line as untrusted JSON. */
function send(message: Record<string, unknown>): void {
  let text: string;
  try {
    text = stringify(message);
  } catch (error) {
    text = stringify({
      t: "done",
      ok: false,
      error: `the result cannot be sent as JSON: ${error}`,
    });
  }
  const bytes = encoder.encode(`${text}\n`);
  let written = 0;
  while (written < bytes.length) written += stdout.writeSync(bytes.subarray(written));
}

/** Drops every permission this process holds (a compiled executable starts with the server's). */
function dropPermissions(): void {
  for (const name of ["read", "write", "net", "env", "sys", "run", "ffi"] as const) {
    try {
      Deno.permissions.revokeSync({ name } as Deno.PermissionDescriptor);
    } catch {
      // not held, or not revocable here: nothing granted either way
    }
  }
}

/**
 * The watch: a thread that reads this process's resident size every few milliseconds and, past `limitBytes`, writes a
 * `memory` line (on a line of its own, whatever the script left half-written) for the server to kill the process on.
 * It also ends the process itself when the server cannot: once its parent is gone (the server was killed: this process
 * would be an orphan spinning on), or well past the script's wall time. A thread cannot exit the process, but
 * exhausting its own capped heap aborts it, which is what it does. The script cannot reach it: it runs in its own
 * isolate, made before the script exists. Resolves to whether it started.
 */
function startWatch(limitBytes: number, deadlineMs: number): Promise<boolean> {
  const source = `
    const encoder = new TextEncoder();
    const parent = Deno.ppid;
    const deadline = Date.now() + ${deadlineMs};
    const end = () => { const hog = []; for (;;) hog.push(new Array(1e6).fill(1)); };
    setInterval(() => {
      if (Deno.ppid !== parent || Date.now() > deadline) end();
      const rss = Deno.memoryUsage().rss;
      if (rss > ${limitBytes}) {
        Deno.stdout.writeSync(encoder.encode("\\n" + JSON.stringify({ t: "memory", rss }) + "\\n"));
      }
    }, ${MEMORY_POLL_MS});
    postMessage("up");
  `;
  return new PromiseCtor((resolve) => {
    const timer = setTimeout(() => resolve(false), 5_000);
    try {
      const watch = new Worker(`data:text/javascript,${encodeURIComponent(source)}`, {
        type: "module",
      });
      watch.onmessage = () => (clearTimeout(timer), resolve(true));
      watch.onerror = (event) => (event.preventDefault(), clearTimeout(timer), resolve(false));
    } catch {
      clearTimeout(timer);
      resolve(false);
    }
  });
}
/** How often the watch reads the process's size and looks for its parent. */
const MEMORY_POLL_MS = 10;
/** How long past its wall time a runner the server did not kill ends itself. */
const ORPHAN_GRACE_MS = 5_000;

/** Reads stdin line by line: the start message first, then answers. */
async function* lines(): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of Deno.stdin.readable) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf("\n")) !== -1) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
    }
  }
}

/** Runs the runner: start, the script, its answer. */
export async function runRunner(): Promise<void> {
  dropPermissions();
  // The server starts no script before it knows the heap cap took effect here (a flag a build could ignore).
  let heapLimit: number | null = null;
  try {
    heapLimit = (await import("node:v8")).getHeapStatistics().heap_size_limit;
  } catch {
    // unknown: the server refuses to run the script
  }
  send({ t: "ready", heapLimit });
  const input = lines();
  const first = await input.next();
  if (first.done) return;
  const start = parse(first.value) as Start;
  if (!await startWatch(start.memoryMb * 1024 * 1024, start.wallMs + ORPHAN_GRACE_MS)) {
    send({ t: "done", ok: false, error: "the script runner's watch did not start" });
    exit(0);
  }
  // Scripts need none of these, and each is memory the heap cap does not count (another isolate, wasm memories).
  for (const name of ["Worker", "WebAssembly", "SharedArrayBuffer"]) {
    delete (globalThis as Record<string, unknown>)[name];
  }
  const stripped = stripTypes(start.code);
  if ("error" in stripped) {
    send({ t: "done", ok: false, error: stripped.error });
    exit(0);
    return;
  }
  send({ t: "stripped" });
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let nextId = 1;
  let finished = false;

  const ask = (message: Record<string, unknown>) =>
    new PromiseCtor((resolve, reject) => {
      if (finished) return reject(new Error("the script has ended"));
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ ...message, id });
    });

  // Answers come back in any order, matched by the id this runner chose.
  (async () => {
    for await (const line of input) {
      const answer = parse(line) as Answer;
      const waiting = pending.get(answer.id);
      if (!waiting) continue;
      pending.delete(answer.id);
      if (answer.ok) waiting.resolve(answer.value);
      else waiting.reject(new Error(answer.error ?? "the call failed"));
    }
  })();

  const calimero: Record<string, unknown> = create(null);
  for (const [slug, methods] of Object.entries(start.apps)) {
    const app: Record<string, unknown> = create(null);
    for (const method of methods) {
      app[method] = (args: unknown = {}, options: { context?: unknown } = {}) =>
        ask({ t: "call", slug, method, args, context: options?.context });
    }
    calimero[slug] = freeze(app);
  }
  calimero.waitForEvents = (options: unknown = {}) => ask({ t: "wait", options });
  const log = (...parts: unknown[]) =>
    send({
      t: "log",
      text: parts.map((p) => typeof p === "string" ? p : safeString(p)).join(" "),
    });
  const scriptConsole = freeze({ log, info: log, warn: log, error: log, debug: log });

  let result: Record<string, unknown>;
  try {
    const script = (0, eval)(`(${stripped.js})`) as (c: unknown, l: unknown) => Promise<unknown>;
    const value = await script(freeze(calimero), scriptConsole);
    result = { t: "done", ok: true, value: value === undefined ? null : value };
  } catch (error) {
    result = {
      t: "done",
      ok: false,
      error: error instanceof Error ? `${error.name}: ${error.message}` : safeString(error),
    };
  }
  finished = true;
  send(result);
  exit(0); // timers the script left behind end with it
}

function safeString(value: unknown): string {
  try {
    return stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

if (import.meta.main) await runRunner();
