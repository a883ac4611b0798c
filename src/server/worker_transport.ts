// The MCP Transport the worker serves: stdin lines in (read by the worker itself, or relayed by the profiling
// entry), stdout lines out through an Output.
// Lines that are not JSON-RPC are answered here, per JSON-RPC 2.0, before the SDK sees them.

import {
  deserializeMessage,
  type JSONRPCMessage,
  type Transport,
} from "@modelcontextprotocol/server";
import { encodeMessage } from "./list_encoding.ts";
import { errorLine, type FromWorker } from "./relay.ts";
import { parseJson } from "../lib/json.ts";

/** A run of digits long enough that JSON.parse may have rounded it (2^53 has 16 digits). */
const LONG_NUMBER = /[0-9]{16,}/;

/** What the transport needs from the worker scope (a seam for tests). */
export interface Port {
  postMessage(message: FromWorker, transfer?: Transferable[]): void;
}

/** Where the transport's output lines go: stdout itself, or main (which writes them and reports each write). */
export type Output = (bytes: Uint8Array) => void;

/** Output handed over to main, the buffer transferred rather than copied (a large tools/list is not copied). */
export function relayOutput(port: Port): Output {
  return (bytes) => port.postMessage({ type: "out", bytes }, [bytes.buffer as ArrayBuffer]);
}

const encoder = new TextEncoder();

/** One line as bytes, newline-terminated. */
function lineBytes(line: string): Uint8Array {
  return encoder.encode(line.endsWith("\n") ? line : `${line}\n`);
}

/** A Transport whose inbound lines are fed by {@link WorkerTransport.receive}. */
export interface WorkerTransport extends Transport {
  /** Hands one stdin line (without its newline) to the SDK. */
  receive(line: string): void;
  /** Resolves once every request received so far has been answered, or after `graceMs`. */
  drained(graceMs: number): Promise<void>;
  /** Bytes of output not yet written to stdout. */
  pendingOutput(): number;
  /** `bytes` of them were written. */
  written(bytes: number): void;
  /** Sends one line that is not a protocol answer of the SDK's (an error for a line it could not take). */
  sendLine(line: string): void;
}

/** Creates the transport that `serveStdio` runs over inside the worker; `output()` is where its lines go now. */
export function createWorkerTransport(output: () => Output): WorkerTransport {
  let closed = false;
  /** Output handed on and not yet written to stdout, in bytes (each write is reported back). */
  let pending = 0;
  const queued: string[] = [];
  const inFlight = new Set<string | number>();
  let onIdle: (() => void) | null = null;
  const emit = (bytes: Uint8Array) => {
    pending += bytes.length;
    output()(bytes);
  };
  const transport: WorkerTransport = {
    start(): Promise<void> {
      // serveStdio sets onmessage around start(); lines that arrived before are handed over next turn.
      setTimeout(() => queued.splice(0).forEach((line) => transport.receive(line)), 0);
      return Promise.resolve();
    },
    send(message: JSONRPCMessage): Promise<void> {
      if (!closed) emit(encodeMessage(message));
      if (!("method" in message) && "id" in message && message.id != null) {
        inFlight.delete(message.id);
        if (inFlight.size === 0 && queued.length === 0) onIdle?.();
      }
      return Promise.resolve();
    },
    close(): Promise<void> {
      if (closed) return Promise.resolve();
      closed = true;
      transport.onclose?.();
      return Promise.resolve();
    },
    receive(line: string): void {
      if (closed || line.trim() === "") return;
      if (!transport.onmessage) {
        queued.push(line);
        return;
      }
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (error) {
        answerInvalid(transport.sendLine, line, error);
        return;
      }
      if (LONG_NUMBER.test(line) && !keepExactArguments(message, line)) {
        // The lossless re-read overflowed the stack (thousands of nesting levels): answer, never die.
        if ("method" in message && "id" in message) {
          reply(
            transport.sendLine,
            message.id as string | number,
            -32602,
            "Invalid params: the arguments are nested too deeply to be read with exact integers.",
          );
        }
        return;
      }
      if ("method" in message && "id" in message) inFlight.add(message.id);
      // A cancelled request gets no answer (MCP): it no longer counts as in flight.
      if ("method" in message && message.method === "notifications/cancelled") {
        const cancelled = (message.params as { requestId?: string | number } | undefined)
          ?.requestId;
        if (cancelled !== undefined && inFlight.delete(cancelled) && inFlight.size === 0) {
          onIdle?.();
        }
      }
      transport.onmessage?.(message);
    },
    pendingOutput: () => pending,
    written(bytes) {
      pending = Math.max(0, pending - bytes);
    },
    sendLine: (line) => emit(lineBytes(line)),
    drained(graceMs: number): Promise<void> {
      // Lines still queued (the server was starting) count as in flight too.
      if (inFlight.size === 0 && queued.length === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        onIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
  return transport;
}

/**
 * Tool arguments may carry integers above 2^53 (u64 values, signed invitations); the SDK parses with
 * JSON.parse, which rounds them. Re-read the arguments losslessly (big integers as bigint) so they reach the
 * node with their exact digits. False when the line cannot be re-read (too deep for the reviver's recursion).
 */
function keepExactArguments(message: JSONRPCMessage, line: string): boolean {
  const params = (message as { params?: Record<string, unknown> }).params;
  if (!params || typeof params.arguments !== "object" || params.arguments === null) return true;
  let exact: { params?: { arguments?: unknown } };
  try {
    exact = parseJson(line) as typeof exact;
  } catch {
    return false; // a RangeError from V8's recursive reviver walk; the SDK's own parse already succeeded
  }
  if (exact.params?.arguments !== undefined) params.arguments = exact.params.arguments;
  return true;
}

/** Answers a line the SDK cannot take: a parse error, or an invalid request when it has an id. */
function answerInvalid(send: (line: string) => void, line: string, error: unknown): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    reply(send, null, -32700, "Parse error: the line is not valid JSON.");
    return;
  }
  const id = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>).id
    : undefined;
  const isNotification = typeof parsed === "object" && parsed !== null &&
    !Array.isArray(parsed) && "method" in parsed && !("id" in parsed);
  if (isNotification) return; // an invalid notification gets no answer
  // An integer id beyond 2^53 was rounded by the parse: echoing it would name another request, so null.
  const validId = typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id))
    ? id
    : null;
  const reason = error instanceof Error ? error.message.split("\n")[0].slice(0, 200) : "";
  reply(send, validId, -32600, `Invalid Request: not a JSON-RPC 2.0 message. ${reason}`.trim());
}

function reply(
  send: (line: string) => void,
  id: string | number | null,
  code: number,
  message: string,
): void {
  send(errorLine(id, code, message));
}
