// The node's event stream (core crates/server/src/sse/): `GET /sse` at the node's root opens a session whose
// first frame is `{"type":"connect","session_id":"<u64>","reconnect":bool}`; `POST /sse/subscription` adds or
// removes contexts; every later frame is a `message` whose data is `{"result": <NodeEvent>}`. Delivery is
// skip-on-disconnect: nothing is buffered by the node, and a reconnect with `Last-Event-ID: <session>-<n>` keeps
// the session and its subscriptions but not what happened while away (handlers.rs).

import type { HttpCore } from "./http.ts";
import { NodeHttpError } from "./http.ts";
import { createSseParser, type SseItem } from "./sse_parse.ts";

/** The most bytes of one frame's data kept; a larger frame is dropped and reported. */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** What the stream yields, already parsed. */
export type StreamItem =
  | { kind: "connect"; id: string | null; sessionId: string; reconnect: boolean }
  /** A node event; `bytes` is the size of its frame's data. */
  | { kind: "event"; id: string | null; event: Record<string, unknown>; bytes: number }
  | { kind: "close"; id: string | null; reason: string }
  /** A frame that was not JSON, not an object, or over MAX_FRAME_BYTES: dropped, but a gap to report. */
  | { kind: "dropped"; id: string | null; why: string };

/** The SSE endpoints of one node. */
export interface EventsApi {
  /**
   * Opens the stream; iterate it until it ends (the node closed it, or `signal` aborted). Throws NodeHttpError; the
   * iteration throws when nothing at all (not even a keep-alive) arrived for `idleMs`.
   */
  open(
    options: { lastEventId?: string | null; signal: AbortSignal; idleMs?: number },
  ): Promise<AsyncIterable<StreamItem>>;
  /** Subscribes contexts to the session; resolves to the ids the node accepted (it drops non-members). */
  subscribe(sessionId: string, contextIds: string[], signal?: AbortSignal): Promise<string[]>;
  /** Removes contexts from the session (idempotent on the node). */
  unsubscribe(sessionId: string, contextIds: string[], signal?: AbortSignal): Promise<void>;
}

/** Builds the events API over an HTTP core. */
export function createEventsApi(http: HttpCore): EventsApi {
  const subscription = async (
    sessionId: string,
    method: "subscribe" | "unsubscribe",
    contextIds: string[],
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> => {
    const answer = await http.request<Record<string, unknown>>({
      method: "POST",
      path: "/sse/subscription",
      atRoot: true,
      envelope: false,
      json: { id: sessionId, method, params: { contextIds } },
      call: { signal },
    });
    const result = answer !== null && typeof answer === "object" ? answer.result : undefined;
    if (result === null || typeof result !== "object" || Array.isArray(result)) {
      throw new NodeHttpError({
        method: "POST",
        url: `${http.baseUrl}/sse/subscription`,
        path: "/sse/subscription",
        status: 200,
        body: JSON.stringify(answer).slice(0, 300),
        expected: "{ result: { status, contexts } }",
      });
    }
    return result as Record<string, unknown>;
  };

  return {
    async open({ lastEventId, signal, idleMs }) {
      const response = await http.stream({
        path: "/sse",
        atRoot: true,
        signal,
        headers: lastEventId ? { "last-event-id": lastEventId } : {},
      });
      return frames(response, signal, idleMs);
    },
    async subscribe(sessionId, contextIds, signal) {
      const result = await subscription(sessionId, "subscribe", contextIds, signal);
      const accepted = Array.isArray(result.contexts) ? result.contexts : [];
      return accepted.filter((id): id is string => typeof id === "string");
    },
    async unsubscribe(sessionId, contextIds, signal) {
      await subscription(sessionId, "unsubscribe", contextIds, signal);
    },
  };
}

async function* frames(
  response: Response,
  signal: AbortSignal,
  idleMs?: number,
): AsyncGenerator<StreamItem> {
  if (response.body === null) return;
  const parser = createSseParser(MAX_FRAME_BYTES);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const stop = () => reader.cancel().catch(() => {});
  // A stream that goes quiet (a hung node, a half-open connection) would otherwise be trusted forever: any bytes,
  // a keep-alive comment included, re-arm the watchdog; silence for idleMs ends the stream with an error.
  let silent = false;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    if (idleMs === undefined) return;
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      silent = true;
      stop();
    }, idleMs);
  };
  signal.addEventListener("abort", stop, { once: true });
  try {
    arm();
    for (;;) {
      const { done, value } = await reader.read();
      if (silent) {
        throw new Error(
          `the node sent nothing for ${Math.round(idleMs! / 1000)} s (not even a keep-alive)`,
        );
      }
      if (done) return;
      arm();
      for (const item of parser.push(value)) yield interpret(item);
    }
  } finally {
    clearTimeout(watchdog);
    signal.removeEventListener("abort", stop);
    stop();
  }
}

/** One frame as what it means (handlers.rs sends every frame as a `message`; the data says which kind). */
export function interpret(item: SseItem): StreamItem {
  if ("oversized" in item) {
    return { kind: "dropped", id: null, why: `a frame of more than ${MAX_FRAME_BYTES} bytes` };
  }
  const { id, data } = item.frame;
  let value: unknown;
  try {
    // Plain JSON.parse, not the lossless parser: no field of a node event comes near 2^53 (ids and roots are
    // strings, an app's payload is an array of bytes decoded losslessly later), and the lossless parser's slow
    // path, which any run of 16 digits in a frame selects, costs ~10× per frame: a node could stall us with it.
    value = JSON.parse(data);
  } catch {
    return { kind: "dropped", id, why: "a frame that was not JSON" };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { kind: "dropped", id, why: "a frame that was not a JSON object" };
  }
  const body = value as Record<string, unknown>;
  if (body.type === "connect" && typeof body.session_id === "string") {
    return { kind: "connect", id, sessionId: body.session_id, reconnect: body.reconnect === true };
  }
  if (body.type === "close") {
    return { kind: "close", id, reason: typeof body.reason === "string" ? body.reason : "" };
  }
  const result = body.result;
  if (result !== null && typeof result === "object" && !Array.isArray(result)) {
    return { kind: "event", id, event: result as Record<string, unknown>, bytes: data.length };
  }
  return { kind: "dropped", id, why: "a frame that was neither an event nor a connect" };
}
