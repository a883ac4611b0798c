// The node's event stream, after core crates/server/src/sse/ (handlers.rs, session.rs, config.rs) and the
// event shapes of crates/primitives/src/events.rs. Sessions outlive connections; every frame is an SSE `message`;
// the first is `{"type":"connect","session_id","reconnect"}` with id `<session>-0` and `retry: 3000`; events follow
// as `{"result": <NodeEvent>}` with ids `<session>-<n>`, n from 1; nothing is buffered while a session has no
// connection (skip-on-disconnect). Events reach every simulated node that holds the context (network.ts).

import { base58Decode } from "./base58.ts";
import { json } from "./http.ts";
import { type EventReach, network } from "./network.ts";
import { stringifyExact } from "./json.ts";
import type { NodeState } from "./state.ts";

/** One SSE session (session.rs SessionStateInner). */
interface Session {
  id: string;
  subscriptions: Set<string>;
  /** The next event number (starts at 1: `-0` is the connect frame). */
  counter: number;
  /** The bound connection, if any: rebinding replaces it (session.rs bind_connection). */
  connection: Connection | null;
}

interface Connection {
  send(frame: string): boolean;
  close(): void;
}

/** A node's SSE state. */
export interface EventStreams {
  sessions: Map<string, Session>;
  open: Set<Connection>;
  /** Who the caller is to the membership check: the node owner observes every context (ws/subscribe.rs). */
  observer: "owner" | "member";
  /** Ends every open stream (the sessions stay, as on a dropped connection). */
  dropAll(): void;
  /** Ends every stream and stops receiving the network's events (the node closes). */
  detach(): void;
}

/** The SSE keep-alive interval: axum's `KeepAlive::default()` (15 s, an empty comment). */
const KEEP_ALIVE_MS = 15_000;
/** config.rs SSE_RETRY_TIMEOUT_MS. */
const RETRY_MS = 3_000;

/** The SSE state of a node, registered with the network so writes anywhere reach its subscribers. */
export function createEventStreams(node: NodeState): EventStreams {
  const streams: EventStreams = {
    sessions: new Map(),
    open: new Set(),
    observer: "owner",
    dropAll() {
      for (const connection of [...streams.open]) connection.close();
    },
    detach() {
      network.eventSinks.delete(sink);
      streams.dropAll();
    },
  };
  // The node's broadcast channel holds BROADCAST_CAPACITY events for all contexts together, and a receiver that
  // lags behind loses the overflow without a word (core crates/node/src/constants.rs, node/primitives
  // client.rs): ids are stamped as frames are written, so the loss leaves no gap in them. Here, events
  // sent within one turn of the event loop past the capacity are dropped the same way.
  let inTurn = 0;
  const sink = (contextId: string, event: Record<string, unknown>, to: EventReach) => {
    // A node sends its subscribers the events of contexts it holds (events.rs handle_node_events).
    if (!node.contexts.has(contextId)) return;
    if (to.only === "origin" && to.origin !== node) return;
    if (to.only === "peers" && to.origin === node) return;
    if (inTurn++ === 0) setTimeout(() => inTurn = 0, 0);
    if (inTurn > BROADCAST_CAPACITY) return;
    for (const session of streams.sessions.values()) {
      if (!session.subscriptions.has(contextId) || !session.connection) continue;
      const id = `${session.id}-${session.counter++}`;
      session.connection.send(frame(id, stringifyExact({ result: event })));
    }
  };
  network.eventSinks.add(sink);
  return streams;
}

/** core crates/node/src/constants.rs: the node event broadcast channel's capacity. */
export const BROADCAST_CAPACITY = 256;

/** Emits a NodeEvent for a context to the nodes holding it that `to` names (default every one). */
export function emitContextEvent(
  contextId: string,
  type: string,
  data: Record<string, unknown>,
  to: EventReach = { only: "all" },
): void {
  const event = { contextId, type, data };
  for (const sink of network.eventSinks) sink(contextId, event, to);
}

function frame(id: string, data: string, retry?: number): string {
  return `event: message\nid: ${id}\n${retry ? `retry: ${retry}\n` : ""}data: ${data}\n\n`;
}

/** `GET /sse` (handlers.rs sse_handler). */
export function openStream(streams: EventStreams, req: Request): Response {
  // The session id is what precedes the first `-` of Last-Event-ID; an unknown one gets a new session.
  const last = req.headers.get("last-event-id")?.split("-")[0];
  let session = last ? streams.sessions.get(last) : undefined;
  const reconnect = session !== undefined;
  if (!session) {
    // A random u64, as core's `random()` session id.
    let id: string;
    do id = crypto.getRandomValues(new BigUint64Array(1))[0].toString(); while (
      streams.sessions.has(id)
    );
    session = { id, subscriptions: new Set(), counter: 1, connection: null };
    streams.sessions.set(id, session);
  }
  const owner = session;
  owner.connection?.close();
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const connection: Connection = {
    send(text) {
      if (!controller) return false;
      try {
        controller.enqueue(encoder.encode(text));
        return true;
      } catch {
        return false;
      }
    },
    close() {
      clearInterval(keepAlive);
      streams.open.delete(connection);
      if (owner.connection === connection) owner.connection = null;
      const c = controller;
      controller = null;
      try {
        c?.close();
      } catch { /* already closed */ }
    },
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      const hello = stringifyExact({ type: "connect", session_id: owner.id, reconnect });
      c.enqueue(encoder.encode(frame(`${owner.id}-0`, hello, RETRY_MS)));
      keepAlive = setInterval(() => connection.send(":\n\n"), KEEP_ALIVE_MS);
    },
    cancel() {
      connection.close();
    },
  });
  owner.connection = connection;
  streams.open.add(connection);
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-sse-session-id": owner.id,
      "x-sse-reconnect": String(reconnect),
    },
  });
}

/** `POST /sse/subscription` (handlers.rs handle_subscription; ids parse as in crates/server/primitives/src/sse.rs). */
export function subscription(streams: EventStreams, node: NodeState, body: unknown): Response {
  const request = body as Record<string, unknown> | null;
  const id = typeof request?.id === "string" ? request.id : null;
  if (id === null || !/^\d{1,20}$/.test(id) || BigInt(id) >= 2n ** 64n) {
    return json({ error: "Invalid Session Id" }, 400);
  }
  const method = request!.method;
  const params = (request!.params ?? {}) as Record<string, unknown>;
  const ids = params.contextIds ?? [];
  if (method !== "subscribe" && method !== "unsubscribe") {
    return parseError(
      `unknown variant \`${String(method)}\`, expected \`subscribe\` or \`unsubscribe\``,
    );
  }
  if (
    !Array.isArray(ids) ||
    !ids.every((c) => typeof c === "string" && base58Decode(c)?.length === 32)
  ) {
    return parseError("invalid context id in `contextIds`");
  }
  const session = streams.sessions.get(String(BigInt(id)));
  if (!session) {
    return json({ error: "Session not found. Please reconnect to SSE endpoint first." }, 404);
  }
  if (method === "unsubscribe") {
    const unsubscribed = ids.filter((c) => session.subscriptions.delete(c));
    return json({ result: { status: "unsubscribed", unsubscribed, requested: ids } });
  }
  // The node owner observes every well-formed id; a key-authenticated caller only contexts it is a member of
  // (ws/subscribe.rs may_observe_context), here: the contexts this node holds.
  const allowed = ids.filter((c) => streams.observer === "owner" || node.contexts.has(c));
  for (const c of allowed) session.subscriptions.add(c);
  return json({ result: { status: "subscribed", contexts: allowed, groups: [] } });
}

function parseError(message: string): Response {
  return json({ error: { type: "ParseError", data: message } }, 400);
}
