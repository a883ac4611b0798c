// The server worker's entry: receives the config from main, then serves MCP over the postMessage transport.
// Runs with permissions narrowed to the state dir and the node's address; reads no environment.

import "./stdio_guard.ts";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { DRAIN_GRACE_MS, type FromWorker, type ToWorker } from "./relay.ts";
import { createWorkerTransport } from "./worker_transport.ts";
import { createServerFactory } from "./server.ts";
import { createRuntime } from "./runtime.ts";
import { log, setLogLevel } from "../log.ts";
import { serveHttp } from "./http_mode.ts";
import { createThrottle } from "./throttle.ts";
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

const transport = createWorkerTransport(scope);
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

async function start(message: Extract<ToWorker, { type: "config" }>): Promise<void> {
  const { config } = message;
  setLogLevel(config.logLevel);
  const runtime = await createRuntime(config);
  const factory = createServerFactory({
    version: runtime.version,
    surface: runtime.surface,
    warmUp: runtime.warmUp,
    events: runtime.eventResources,
    notifies: config.http === null,
    throttle: config.http === null ? throttle : createThrottle(),
    readOnly: config.readOnly,
    confirmer,
    confirmMode: config.confirmDestructive,
    resultChars: config.resultChars,
  });
  if (config.http) {
    // HTTP mode: main does not relay stdin; the process ends on a signal.
    await serveHttp(config.http, { factory, token: message.httpToken ?? null });
    return;
  }
  serveStdio(factory, {
    transport,
    onerror: (error) => log.debug(`protocol: ${error.message}`),
  });
}
