// One script's run, from the server's side: a fresh runner process (runner.ts) per script, its messages read as
// untrusted lines, each call it asks for handed to `dispatch` (which runs every check a direct call runs), and the
// limits no script can talk around: wall time (a busy loop and the type stripping included: the process is killed),
// memory (V8's heap cap, and the runner's watch on its whole resident size: past it the process is killed), calls,
// message size and log size. Nothing of one script outlives it: the process is killed as soon as its answer is in,
// timers and all; a call it left in flight is waited for (within the wall time), never cut off unrecorded.

import { fileURLToPath } from "node:url";
import { parseJson } from "../lib/json.ts";

/** The longest script accepted, in characters. (Kept here, not beside the stripper: the server must not load it.) */
export const MAX_CODE_CHARS = 20_000;

/** The limits of one script. */
export interface ScriptLimits {
  /** Wall time from start to answer, start-up included. */
  wallMs: number;
  /** Calls (app methods and waits) one script may make; one more stops it. */
  maxCalls: number;
  /** Calls in flight at once; more wait their turn. */
  concurrency: number;
  /** The runner's V8 heap cap. */
  heapMb: number;
  /** The runner's whole resident memory (heap, array buffers, code) past which it is killed. */
  memoryMb: number;
  /** Time from handing the script over to its types being stripped (part of the wall time). */
  stripMs: number;
  /** The largest message line the runner may write (its answer included). */
  maxLineBytes: number;
  /** Characters of console output kept; the rest is counted, not kept. */
  maxLogChars: number;
}

/** Defaults: a script is one short unit of work. */
export const SCRIPT_LIMITS: ScriptLimits = {
  wallMs: 30_000,
  maxCalls: 1_000,
  concurrency: 8,
  heapMb: 64,
  memoryMb: 256,
  stripMs: 5_000,
  maxLineBytes: 1024 * 1024,
  maxLogChars: 16 * 1024,
};

/** What a script asks of the server. */
export type ScriptRequest =
  | { kind: "call"; slug: string; method: string; args: unknown; context: unknown }
  | { kind: "wait"; options: unknown };

/** The server's answer to one request: a value for the script, or an error it sees as a rejection. */
export type ScriptAnswer = { ok: true; value: unknown } | { ok: false; error: string };

/** How a script ended. */
export interface ScriptOutcome {
  ok: boolean;
  /** The script's return value (JSON), when it returned. */
  value?: unknown;
  /** Why it failed: its own exception, or the limit that stopped it. */
  error?: string;
  /** Which limit stopped it, if one did. */
  stopped?: "time" | "memory" | "calls" | "message" | "cancelled" | "crashed";
  log: string[];
  /** Characters of output beyond maxLogChars, not kept. */
  logDropped: number;
  calls: number;
  ms: number;
}

/** How the runner process is started. */
export interface RunnerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The runner as a child of this executable: a compiled executable runs itself with `--script-runner` and drops the
 * permissions it was built with first (main.ts); under `deno run`, the runner module with no permission granted, the
 * project's import map and lockfile and nothing but what is already in Deno's cache (its type stripper), found through
 * `cacheEnv` (main.ts reads it: the server has no environment). Either way V8's heap cap is set for that process alone.
 */
export function runnerCommand(
  heapMb: number,
  cacheEnv: Record<string, string> = {},
): RunnerCommand {
  const heap = `--max-old-space-size=${heapMb}`;
  if (Deno.build.standalone) {
    return { command: Deno.execPath(), args: ["--script-runner"], env: { DENO_V8_FLAGS: heap } };
  }
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      `--config=${fileURLToPath(new URL("../../deno.json", import.meta.url))}`,
      "--frozen",
      "--cached-only",
      "--no-remote",
      `--v8-flags=${heap}`,
      fileURLToPath(new URL("./runner.ts", import.meta.url)),
    ],
    env: cacheEnv,
  };
}

/** Runs one script to its end or its limit. Never throws. */
export async function runScript(options: {
  /** The script as the agent wrote it (TypeScript); the runner strips its types. */
  code: string;
  apps: Record<string, string[]>;
  dispatch(request: ScriptRequest, signal: AbortSignal): Promise<ScriptAnswer>;
  signal: AbortSignal;
  limits?: Partial<ScriptLimits>;
  command?: RunnerCommand;
}): Promise<ScriptOutcome> {
  const limits = { ...SCRIPT_LIMITS, ...options.limits };
  const started = performance.now();
  const log: string[] = [];
  let logChars = 0;
  let logDropped = 0;
  let calls = 0;
  const seenIds = new Set<number>();
  // `stop` ends the process; `abortCalls` cuts off the calls still in flight, which an answer does not: a write the
  // script left running is waited for (within the wall time) so that what it did is known.
  const stop = new AbortController();
  const abortCalls = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let outcome: Omit<ScriptOutcome, "log" | "logDropped" | "calls" | "ms"> | null = null;
  const end = (result: NonNullable<typeof outcome>) => {
    if (outcome === null) outcome = result;
    if (result.stopped) abortCalls.abort(); // a limit or a cancel: what it asked for is cut off too
    stop.abort();
  };

  const { command, args, env } = options.command ?? runnerCommand(limits.heapMb);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(command, {
      args,
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    return {
      ok: false,
      error: `the script runner could not start: ${(error as Error).message}`,
      stopped: "crashed",
      log,
      logDropped,
      calls,
      ms: 0,
    };
  }
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  };
  stop.signal.addEventListener("abort", kill, { once: true });
  const wall = setTimeout(() => {
    end({ ok: false, stopped: "time", error: `stopped after ${limits.wallMs / 1000} s` });
    abortCalls.abort(); // an answered script's calls still in flight end here too
  }, limits.wallMs);
  const cancelled = () => end({ ok: false, stopped: "cancelled", error: "the call was cancelled" });
  if (options.signal.aborted) cancelled();
  options.signal.addEventListener("abort", cancelled, { once: true });

  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const write = (message: Record<string, unknown>) =>
    writer.write(encoder.encode(`${JSON.stringify(message)}\n`)).catch(() => {});
  // The script goes to the runner once it has said its heap cap holds: a runner whose cap did not take effect (a
  // build that ignores the flag) runs nothing. Its types must then be stripped within stripMs.
  let ready = false;
  let stripTimer: ReturnType<typeof setTimeout> | undefined;
  const onReady = (heapLimit: unknown) => {
    const cap = limits.heapMb * 4 * 1024 * 1024; // V8 adds the young generation and code space to the old space
    if (typeof heapLimit !== "number" || heapLimit > cap) {
      return end({
        ok: false,
        stopped: "crashed",
        error: `the script runner's memory cap did not take effect (its heap limit is ${
          typeof heapLimit === "number" ? `${Math.round(heapLimit / 1048576)} MiB` : "unknown"
        }), so no script is run`,
      });
    }
    ready = true;
    stripTimer = setTimeout(() =>
      end({
        ok: false,
        stopped: "time",
        error: `its types took over ${
          limits.stripMs / 1000
        } s to strip, so it was stopped before it ran (deeply nested \`<T>(…)\` assertions are slow to parse: write \`(x as T)\`)`,
      }), limits.stripMs);
    void write({
      t: "start",
      code: options.code,
      apps: options.apps,
      memoryMb: limits.memoryMb,
      wallMs: limits.wallMs,
    });
  };

  // Calls run a few at a time, in the order asked.
  let running = 0;
  const queue: (() => void)[] = [];
  const turn = () =>
    new Promise<void>((resolve) => {
      if (running < limits.concurrency) {
        running++;
        resolve();
      } else queue.push(() => (running++, resolve()));
    });
  const release = () => {
    running--;
    queue.shift()?.();
  };

  const answer = async (id: number, request: ScriptRequest) => {
    await turn();
    try {
      // A call asked before the script's answer still runs (that answer may come in the same read); one of a
      // script stopped by a limit or a cancel does not start.
      if (abortCalls.signal.aborted) return;
      const result = await options.dispatch(request, abortCalls.signal).catch((
        error,
      ): ScriptAnswer => ({
        ok: false,
        error: (error as Error).message,
      }));
      if (!stop.signal.aborted) await write({ t: "answer", id, ...result });
    } finally {
      release();
    }
  };

  const onMessage = (line: string) => {
    if (line === "") return;
    let message: Record<string, unknown>;
    try {
      const parsed = parseJson(line);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error();
      message = parsed as Record<string, unknown>;
    } catch {
      // Anything else on stdout is the script writing there itself: its output, not a message.
      return keepLog(line);
    }
    const kind = message.t;
    // The watch's report is taken at any time: at worst a script that forges one stops itself.
    if (kind === "memory") {
      const rss = typeof message.rss === "number"
        ? ` (${Math.round(message.rss / 1048576)} MiB)`
        : "";
      return end({
        ok: false,
        stopped: "memory",
        error: `stopped: it used more than its ${limits.memoryMb} MiB of memory${rss}`,
      });
    }
    if (!ready) return kind === "ready" ? onReady(message.heapLimit) : undefined;
    if (kind === "stripped") return clearTimeout(stripTimer);
    if (kind === "log") return keepLog(String(message.text));
    if (kind === "done") {
      return end(
        message.ok === true
          ? { ok: true, value: message.value ?? null }
          : { ok: false, error: String(message.error ?? "the script failed") },
      );
    }
    if (kind !== "call" && kind !== "wait") return keepLog(line);
    const id = message.id;
    // An id is the runner's own and used once; a repeated or malformed one gets no answer.
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1 || seenIds.has(id)) return;
    seenIds.add(id);
    if (++calls > limits.maxCalls) {
      return end({
        ok: false,
        stopped: "calls",
        error: `stopped at its ${
          limits.maxCalls + 1
        }th call: a script makes at most ${limits.maxCalls}`,
      });
    }
    const request: ScriptRequest = kind === "call"
      ? {
        kind,
        slug: String(message.slug),
        method: String(message.method),
        args: message.args,
        context: message.context,
      }
      : { kind, options: message.options };
    const handled = answer(id, request);
    inFlight.add(handled);
    void handled.finally(() => inFlight.delete(handled));
  };

  const keepLog = (text: string) => {
    const room = limits.maxLogChars - logChars;
    if (room <= 0) {
      logDropped += text.length;
      return;
    }
    const kept = text.length > room ? text.slice(0, room) : text;
    log.push(kept);
    logChars += kept.length;
    logDropped += text.length - kept.length;
  };

  const readLines = async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    try {
      for await (const chunk of child.stdout) {
        if (stop.signal.aborted) break;
        buffered += decoder.decode(chunk, { stream: true });
        for (;;) {
          const newline = buffered.indexOf("\n");
          if (newline === -1 || newline > limits.maxLineBytes) break;
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          onMessage(line);
          if (stop.signal.aborted) return;
        }
        const pending = buffered.indexOf("\n");
        if (
          pending > limits.maxLineBytes || (pending === -1 && buffered.length > limits.maxLineBytes)
        ) {
          return end({
            ok: false,
            stopped: "message",
            error: `stopped: it wrote a message over ${limits.maxLineBytes / 1024} KiB`,
          });
        }
      }
    } catch {
      // the process was killed
    }
  };

  const stderrTail = async () => {
    let tail = "";
    try {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
        tail = (tail + chunk).slice(-4096);
      }
    } catch {
      // killed
    }
    return tail;
  };

  const [, status, stderr] = await Promise.all([readLines(), child.status, stderrTail()]);
  clearTimeout(stripTimer);
  options.signal.removeEventListener("abort", cancelled);
  if (outcome === null) {
    // The process ended without an answer: out of heap (V8 aborts it), or it exited on its own.
    const oom = /heap out of memory|Reached heap limit|OOM/i.test(stderr) ||
      status.signal === "SIGABRT" || status.signal === "SIGTRAP";
    end(
      oom
        ? {
          ok: false,
          stopped: "memory",
          error: `stopped: it ran out of its ${limits.heapMb} MiB of heap`,
        }
        : {
          ok: false,
          stopped: "crashed",
          error: `the script ended without an answer (exit code ${status.code})${
            stderr.trim() ? `: ${stderr.trim().split("\n").at(-1)!.slice(0, 300)}` : ""
          }`,
        },
    );
  }
  kill();
  await writer.close().catch(() => {});
  // What the script left in flight finishes (an answered script's within its wall time; a stopped one's are cut off
  // now and recorded as such), so the record says what each call did.
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  clearTimeout(wall);
  return {
    ...outcome!,
    log,
    logDropped,
    calls: Math.min(calls, limits.maxCalls),
    ms: Math.round(performance.now() - started),
  };
}
