// The server worker's entry: receives the config from main, then serves MCP over stdio itself (or, for the profiling
// entry, over lines main relays). Runs with permissions narrowed to the state dir and the node's address; reads no
// environment, and needs no permission for stdin and stdout.

import "./stdio_guard.ts";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { DRAIN_GRACE_MS, type FromWorker, type ToWorker } from "./relay.ts";
import { createWorkerTransport, type Output, relayOutput } from "./worker_transport.ts";
import { oversizedAnswer, readLines } from "./stdin_lines.ts";
import { createServerFactory } from "./server.ts";
import { createRuntime } from "./runtime.ts";
import { log, setLogLevel } from "../lib/log.ts";
import { createThrottle, MAX_SCRIPTS, MAX_SCRIPTS_WAITING } from "./throttle.ts";
import { createConfirmer } from "./confirm.ts";

const scope = self as unknown as {
  postMessage(message: FromWorker, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
};

// An uncaught error or rejection ends the server, reported through main's logger (one prefixed line, no raw
// trace with terminal colours), and main exits 1.
const fatal = (what: string, error: unknown) => {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  scope.postMessage({ type: "fatal", message: `the server worker died (${what}): ${text}` });
};
self.addEventListener("error", (event) => {
  event.preventDefault();
  fatal("uncaught error", (event as ErrorEvent).error ?? (event as ErrorEvent).message);
});
self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  fatal("unhandled rejection", (event as PromiseRejectionEvent).reason);
});

// Output goes to main until the config says the worker owns stdio (the product always does).
let output: Output = relayOutput(scope);
const transport = createWorkerTransport(() => output);
// App calls wait while much of the output is still on its way to a slow reader (stdio); HTTP writes directly.
const throttle = createThrottle({ pendingOutput: transport.pendingOutput });
// Questions before destructive calls are sealed with a key of this process, which answers every round of them.
const confirmer = createConfirmer();
// Every static import has loaded by now: main may drop its own permissions.
scope.postMessage({ type: "ready" });
let started = false;

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "config") {
    if (started) return;
    started = true;
    start(message).catch((error) => {
      scope.postMessage({ type: "fatal", message: `server failed to start: ${error}` });
    });
  } else if (message.type === "line") {
    transport.receive(message.line);
  } else if (message.type === "written") {
    transport.written(message.bytes);
    throttle.drained();
  } else if (message.type === "close") {
    transport.drained(DRAIN_GRACE_MS).then(() => scope.postMessage({ type: "drained" }));
  }
};

/**
 * Serves stdio from this thread: stdin split into lines for the transport, its output written to stdout in order,
 * each write counted as done when it is (the throttle waits on that). At the end of stdin, the requests in flight
 * are answered (up to the drain grace) and written out; then main is told it may exit.
 */
function ownStdio(): void {
  const stdout = Deno.stdout.writable.getWriter();
  let lastWrite: Promise<void> = Promise.resolve();
  output = (bytes) => {
    const size = bytes.length;
    lastWrite = stdout.write(bytes).then(() => {
      transport.written(size);
      throttle.drained();
    }, () => {});
  };
  readLines(Deno.stdin.readable, {
    line: (text) => transport.receive(text),
    oversized: (id) => transport.sendLine(oversizedAnswer(id)),
  }).then(async () => {
    scope.postMessage({ type: "stdin-closed" });
    await transport.drained(DRAIN_GRACE_MS);
    await lastWrite;
    scope.postMessage({ type: "drained" });
  }, (error) => scope.postMessage({ type: "fatal", message: `reading stdin failed: ${error}` }));
}

async function start(message: Extract<ToWorker, { type: "config" }>): Promise<void> {
  const { config } = message;
  setLogLevel(config.logLevel);
  if (config.mode === "watch") return await watch(config);
  if (message.ownStdio && !config.http) ownStdio();
  const runtime = await createRuntime(config);
  const factory = createServerFactory({
    version: runtime.version,
    surface: runtime.surface,
    warmUp: runtime.warmUp,
    events: runtime.eventResources,
    notifies: config.http === null,
    throttle: config.http === null ? throttle : createThrottle(),
    scripts: createThrottle({
      maxRunning: MAX_SCRIPTS,
      maxWaiting: MAX_SCRIPTS_WAITING,
      what: { noun: "scripts", retry: "Retry when one has answered." },
    }),
    readOnly: config.readOnly,
    confirmer,
    confirmMode: config.confirmDestructive,
    resultChars: config.resultChars,
    channel: runtime.channel,
    severalNodes: runtime.severalNodes,
  });
  if (config.http) {
    // HTTP mode: stdin is not read; the process ends on a signal.
    // Loaded only here: node:http's compatibility layer costs every stdio start ~tens of ms it does not need.
    const { serveHttp } = await import("./http_mode.ts");
    await serveHttp(config.http, { factory, token: message.httpToken ?? null });
    return;
  }
  // The person opted into the channel: its contexts are followed from the start, not from the client's first request
  // (a 2026-07-28 client may connect and stay idle).
  runtime.channel?.start();
  serveStdio(factory, {
    transport,
    onerror: (error) => log.debug(`protocol: ${error.message}`),
  });
}

/**
 * `mero-mcp watch`: lines on stdout until stdout is closed (main exits 0 once told), or a signal ends the process.
 * stdin is not read: a monitor's command has none.
 */
async function watch(config: Extract<ToWorker, { type: "config" }>["config"]): Promise<void> {
  const { runWatch } = await import("./watch_mode.ts");
  const stdout = Deno.stdout.writable.getWriter();
  const encoder = new TextEncoder();
  const write = (line: string) =>
    stdout.write(encoder.encode(`${line}\n`)).then(() => true, () => false);
  await runWatch(await createRuntime(config), write);
  scope.postMessage({ type: "drained" });
}
