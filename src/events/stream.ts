// The node's event stream (core crates/server/src/sse/) as one reconnecting connection: opened on demand, resumed
// with `Last-Event-ID` after a drop (backoff doubling to a ceiling), and telling its owner when it connected, what
// arrived, and when events may have been missed. It knows nothing of which contexts are watched: src/events/hub.ts
// does, and subscribes them again on every connect.

import type { EventsApi, StreamItem } from "../mero/mod.ts";
import { log } from "../lib/log.ts";

/** Reconnect backoff: the first delay, doubled per failed attempt up to the last. */
export const BACKOFF_MS = { first: 250, max: 10_000 };
/**
 * How long a connection must have lasted to count as recovered: only then does the backoff start over and a
 * repeated problem get logged again. A node that accepts the stream and drops it at once is retried ever slower.
 */
export const STABLE_MS = 30_000;
/** How long the stream may be silent before it is reopened (core sends a keep-alive every 15 s). */
export const IDLE_MS = 45_000;

/** A context event as the node sent it. */
export type NodeEvent = Extract<StreamItem, { kind: "event" }>;

/** What the stream tells its owner. */
export interface StreamOptions {
  /** The node's events API, connecting first when needed. */
  connect(): Promise<EventsApi>;
  /** Whether the stream is still wanted (something is watched): it stops reconnecting when not. */
  wanted(): boolean;
  /** Connected (or resumed): subscribe what is watched. */
  onConnect(): void;
  /** A context event arrived. */
  onEvent(event: NodeEvent): void;
  /** Events may have been missed just now: a drop, a skipped event number, an interruption. */
  onGap(why: string): void;
  /** The stream failed and is retrying, for `text`'s reason. */
  onProblem(text: string): void;
  backoff?: { first: number; max: number };
  /** Silence after which the stream is taken for dead and reopened (default IDLE_MS). */
  idleMs?: number;
  /** How long a connection must last to count as recovered (default STABLE_MS). */
  stableMs?: number;
}

/** The reconnecting stream. */
export interface EventStream {
  /** Starts the connection loop unless it runs; a stream waiting out its backoff tries again at once. */
  start(): void;
  /** The connected session, for subscription requests; null while not connected. */
  session(): { api: EventsApi; id: string } | null;
  /** Nothing is wanted any more: closes the connection; the next start opens a fresh session. */
  release(): void;
  /** Ends the stream for good. */
  close(): void;
  status(): { connected: boolean; reconnects: number; lastProblem: string | null };
}

/** Creates the stream; nothing contacts the node until `start`. */
export function createEventStream(options: StreamOptions): EventStream {
  const backoff = options.backoff ?? BACKOFF_MS;
  const idleMs = options.idleMs ?? IDLE_MS;
  const stableMs = options.stableMs ?? STABLE_MS;
  const link = {
    api: null as EventsApi | null,
    sessionId: null as string | null,
    lastEventId: null as string | null,
    /** The node's number of the last event of this session (-1: none yet since the connect). */
    lastNumber: -1,
  };
  const loop = {
    running: false,
    closed: false,
    /** Closed on purpose because nothing is wanted: not an interruption. */
    releasing: false,
    current: null as AbortController | null,
    wake: null as (() => void) | null,
    reconnects: 0,
    lastProblem: null as string | null,
    /** The problem last logged: the same one is not logged again until the stream has been stable. */
    warned: null as string | null,
    /** The problem whose recovery was logged. */
    recovered: null as string | null,
  };

  const onItem = (item: StreamItem) => {
    if (item.id !== null) {
      // ids are `<session>-<n>`, n counting up per session (core sse/handlers.rs); a jump means skipped frames.
      const m = /^(\d+)-(\d+)$/.exec(item.id);
      if (m && m[1] === link.sessionId) {
        const n = Number(m[2]);
        if (link.lastNumber >= 0 && n > link.lastNumber + 1) {
          options.onGap(`the node skipped ${n - link.lastNumber - 1} event(s) on the stream`);
        }
        link.lastNumber = n;
      }
      link.lastEventId = item.id;
    }
    if (item.kind === "dropped") options.onGap(`an event was dropped: ${item.why}`);
    else if (item.kind === "event") options.onEvent(item);
  };

  const problem = (text: string) => {
    if (text !== loop.warned) log.warn(`event stream: ${text}; reconnecting`);
    loop.warned = text;
    loop.lastProblem = text;
    options.onProblem(text);
  };

  /** One connection, until it ends: whether it connected, and whether it stayed up long enough to count. */
  const connectOnce = async (
    controller: AbortController,
  ): Promise<{ connected: boolean; stable: boolean }> => {
    let connectedAt: number | null = null;
    let ended: string;
    const stable = () => connectedAt !== null && performance.now() - connectedAt >= stableMs;
    try {
      link.api ??= await options.connect();
      const stream = await link.api.open({
        lastEventId: link.lastEventId,
        signal: controller.signal,
        idleMs,
      });
      for await (const item of stream) {
        if (item.kind === "connect") {
          link.lastEventId = item.id ?? link.lastEventId;
          connectedAt ??= performance.now();
          link.sessionId = item.sessionId;
          // A resumed session goes on counting from where it was: the first number after a connect is no gap.
          link.lastNumber = -1;
          if (loop.warned !== null && loop.recovered !== loop.warned) {
            log.info("event stream connected to the node");
            loop.recovered = loop.warned;
          }
          loop.lastProblem = null;
          options.onConnect();
        } else onItem(item);
        if (item.kind === "close") break;
      }
      ended = "the node ended the event stream";
    } catch (error) {
      ended = (error as Error).message;
    }
    // A connection that lasted has recovered: its problem, if it comes again, is news again.
    if (stable()) loop.warned = loop.recovered = null;
    if (!controller.signal.aborted) problem(ended);
    link.sessionId = null;
    return { connected: connectedAt !== null, stable: stable() };
  };

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        loop.wake = null;
        resolve();
      }
      loop.wake = done;
    });

  const run = async () => {
    loop.running = true;
    let attempt = 0;
    while (!loop.closed && options.wanted()) {
      const controller = new AbortController();
      loop.current = controller;
      const ended = await connectOnce(controller);
      loop.current = null;
      if (loop.releasing) {
        // Closed because nothing was wanted; wanted again since then, it starts a fresh stream at once.
        loop.releasing = false;
        continue;
      }
      if (loop.closed || !options.wanted()) break;
      loop.reconnects++;
      if (ended.stable) attempt = 0;
      if (ended.connected) {
        options.onGap(
          "the event stream was interrupted; the node keeps no events, so any that happened until it reconnected are lost",
        );
      }
      await pause(
        Math.min(backoff.max, backoff.first * 2 ** attempt++) * (0.8 + Math.random() * 0.4),
      );
    }
    loop.running = false;
  };

  return {
    start() {
      if (!loop.running && !loop.closed) void run();
      loop.wake?.();
    },
    session: () =>
      link.api !== null && link.sessionId !== null ? { api: link.api, id: link.sessionId } : null,
    release() {
      // The node keeps a session's subscriptions for a day: a resumed one would stream what is no longer watched.
      if (loop.current) loop.releasing = true;
      loop.current?.abort();
      loop.wake?.();
      link.lastEventId = null;
    },
    close() {
      loop.closed = true;
      loop.current?.abort();
      loop.wake?.();
    },
    status: () => ({
      connected: link.sessionId !== null,
      reconnects: loop.reconnects,
      lastProblem: loop.lastProblem,
    }),
  };
}
