// The process's one event stream from the node (core crates/server/src/sse/), and the contexts it watches.
// Opened when the first context is watched and closed when the last one is let go, so a process that watches
// nothing holds no connection. Reconnects with backoff and `Last-Event-ID`, subscribes everything watched again
// on each `connect`, and writes a gap into every watched context whenever events may have been missed.

import type { EventsApi, StreamItem } from "../mero/sse.ts";
import { log } from "../log.ts";
import {
  append,
  type ContextLog,
  createCursors,
  createLog,
  type Cursors,
  type Entry,
  type Found,
  read,
} from "./log.ts";

/** The most contexts watched at once; watching one more lets go of the least recently used. */
export const MAX_WATCHED = 32;
/** How long `watch` waits for the node to confirm a subscription before answering "pending". */
export const SUBSCRIBE_WAIT_MS = 5_000;
/** Reconnect backoff: the first delay, doubled per failed attempt up to the last. */
export const BACKOFF_MS = { first: 250, max: 10_000 };

/** Context event types the node sends that are kept. `Ephemeral` (presence heartbeats) is not. */
const KEPT = new Set(["StateMutation", "AppVersionChanged", "SyncStatus", "XCall"]);

/** Where a watch stands. */
export type WatchState = "pending" | "subscribed" | "refused";

/** One watched context. */
export interface Watch {
  contextId: string;
  state: WatchState;
  /** Why the node refused it, or why the last subscription attempt failed. */
  problem: string | null;
  log: ContextLog;
  /** Whatever the watcher attached (the app the context runs, for decoding); cleared on AppVersionChanged. */
  app: unknown;
}

/** What `watch` reports. */
export interface WatchResult {
  watch: Watch;
  /** It was not watched before this call: nothing from before now is known. */
  newly: boolean;
  /** A context let go to make room (least recently used). */
  evicted: string | null;
}

/** The options of {@link createEventHub}. */
export interface HubOptions {
  /** The node's events API, connecting first when needed. */
  connect(): Promise<EventsApi>;
  /** Called for every kept event (after it is in the log): the catalog and resource notifications listen here. */
  onEvent?(contextId: string, entry: Entry): void;
  /** Called when a context starts or stops being watched. */
  onWatchedChange?(): void;
  maxWatched?: number;
  backoff?: { first: number; max: number };
  cursors?: Cursors;
}

/** The process's event stream and watched contexts. */
export interface EventHub {
  readonly cursors: Cursors;
  /** The seq of the newest event seen (0 before any). */
  head(): number;
  /** Starts (or refreshes, for the LRU order) watching a context; waits a moment for the node to confirm. */
  watch(contextId: string, app?: unknown): Promise<WatchResult>;
  /** Stops watching; false when it was not watched. */
  unwatch(contextId: string): Promise<boolean>;
  /** The watch of a context, if watched (does not count as use). */
  get(contextId: string): Watch | undefined;
  /** Watched context ids, least recently used first. */
  watched(): string[];
  /** The entries after `after` (see log.ts `read`). */
  read(watch: Watch, after: number, match: (entry: Entry) => boolean, limit: number): Found;
  /**
   * Resolves when an entry after `after` that `match` accepts is in the watch's log, the time is up, `signal`
   * aborts, or the context stops being watched; `tick` is called every `tickMs` while waiting.
   */
  wait(
    watch: Watch,
    after: number,
    match: (entry: Entry) => boolean,
    options: {
      timeoutMs: number;
      signal: AbortSignal;
      tickMs?: number;
      tick?(elapsedMs: number): void;
    },
  ): Promise<void>;
  /** What node_status shows. */
  status(): { connected: boolean; watched: number; reconnects: number; lastProblem: string | null };
  /** Ends the stream and every wait. */
  close(): void;
}

/** Creates the hub; nothing contacts the node until the first `watch`. */
export function createEventHub(options: HubOptions): EventHub {
  const cursors = options.cursors ?? createCursors();
  const maxWatched = options.maxWatched ?? MAX_WATCHED;
  const backoff = options.backoff ?? BACKOFF_MS;
  const watches = new Map<string, Watch>(); // insertion order = least recently used first
  const confirmed = new Map<string, Set<() => void>>(); // waiting for a subscription answer
  let seq = 0;
  let running = false;
  let closed = false;
  let api: EventsApi | null = null;
  let sessionId: string | null = null;
  let lastEventId: string | null = null;
  let lastNumber = -1;
  let current: AbortController | null = null;
  let wake: (() => void) | null = null;
  let reconnects = 0;
  let lastProblem: string | null = null;
  /** The stream was closed on purpose (nothing left to watch). */
  let quitting = false;

  const settle = (watch: Watch, state: WatchState, problem: string | null) => {
    watch.state = state;
    watch.problem = problem;
    for (const done of confirmed.get(watch.contextId) ?? []) done();
    confirmed.delete(watch.contextId);
  };

  const gapAll = (why: string) => {
    const at = Date.now();
    for (const watch of watches.values()) {
      append(watch.log, { seq: ++seq, at, type: "Gap", data: null, bytes: 0, gap: why });
    }
  };

  const subscribe = async (ids: string[]) => {
    const session = sessionId;
    if (api === null || session === null || ids.length === 0) return;
    try {
      const accepted = new Set(await api.subscribe(session, ids));
      for (const id of ids) {
        const watch = watches.get(id);
        if (!watch) continue;
        if (accepted.has(id)) settle(watch, "subscribed", null);
        else {
          settle(
            watch,
            "refused",
            "the node did not subscribe this context (its identity is not a member, or the id is unknown to it)",
          );
        }
      }
    } catch (error) {
      const problem = `subscribing failed: ${(error as Error).message}`;
      for (const id of ids) {
        const watch = watches.get(id);
        if (watch) settle(watch, "pending", problem);
      }
    }
  };

  const onItem = (item: StreamItem) => {
    if (item.id !== null) {
      // ids are `<session>-<n>`, n counting up per session (handlers.rs); a jump means frames were skipped.
      const m = /^(\d+)-(\d+)$/.exec(item.id);
      if (m && m[1] === sessionId) {
        const n = Number(m[2]);
        if (lastNumber >= 0 && n > lastNumber + 1) {
          gapAll(`the node skipped ${n - lastNumber - 1} event(s) on the stream`);
        }
        lastNumber = n;
      }
      lastEventId = item.id;
    }
    if (item.kind === "dropped") {
      gapAll(`an event was dropped: ${item.why}`);
      return;
    }
    if (item.kind !== "event") return;
    const { contextId, type, data } = item.event;
    if (typeof contextId !== "string" || typeof type !== "string" || !KEPT.has(type)) return;
    const watch = watches.get(contextId);
    if (!watch) return;
    const entry: Entry = {
      seq: ++seq,
      at: Date.now(),
      type,
      data: data ?? null,
      bytes: item.bytes,
    };
    if (type === "AppVersionChanged") watch.app = undefined;
    append(watch.log, entry);
    options.onEvent?.(contextId, entry);
  };

  const connectOnce = async (controller: AbortController): Promise<boolean> => {
    let connected = false;
    try {
      api ??= await options.connect();
      const stream = await api.open({ lastEventId, signal: controller.signal });
      for await (const item of stream) {
        if (item.kind === "connect") {
          lastEventId = item.id ?? lastEventId;
          const resumed = connected || reconnects > 0;
          connected = true;
          sessionId = item.sessionId;
          // A resumed session goes on counting from where it was: the first number after a connect is no gap.
          lastNumber = -1;
          if (lastProblem !== null || resumed) log.info("event stream connected to the node");
          lastProblem = null;
          void subscribe([...watches.keys()]);
        } else onItem(item);
        if (item.kind === "close") break;
      }
      if (!controller.signal.aborted) problem("the node ended the event stream");
    } catch (error) {
      if (!controller.signal.aborted) problem((error as Error).message);
    }
    sessionId = null;
    return connected;
  };

  const problem = (text: string) => {
    if (text !== lastProblem) log.warn(`event stream: ${text}; reconnecting`);
    lastProblem = text;
    // Whoever waits for a subscription learns now that it will not come soon (a node without events answers
    // `/sse` with a 404 at once: select_app must not wait out SUBSCRIBE_WAIT_MS for it).
    for (const watch of watches.values()) {
      if (watch.state === "pending") settle(watch, "pending", text);
    }
  };

  const run = async () => {
    running = true;
    let attempt = 0;
    while (!closed && watches.size > 0) {
      const controller = new AbortController();
      current = controller;
      const wasConnected = await connectOnce(controller);
      current = null;
      if (quitting) {
        // Closed because nothing was watched; a context watched since then starts a fresh stream at once.
        quitting = false;
        if (watches.size === 0) break;
        continue;
      }
      if (closed || watches.size === 0) break;
      reconnects++;
      if (wasConnected) {
        attempt = 0;
        gapAll(
          "the event stream was interrupted; the node keeps no events, so any that happened until it reconnected are lost",
        );
      }
      for (const watch of watches.values()) {
        if (watch.state === "subscribed") watch.state = "pending";
      }
      const delay = Math.min(backoff.max, backoff.first * 2 ** attempt++) *
        (0.8 + Math.random() * 0.4);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, delay);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    }
    running = false;
  };

  const ensureRunning = () => {
    if (!running && !closed) void run();
  };

  return {
    cursors,
    head: () => seq,
    async watch(contextId, app) {
      const known = watches.get(contextId);
      // Refused on a resubscribe (membership lost): asked again, it is asked of the node again.
      if (known?.state === "refused") await this.unwatch(contextId);
      else if (known) {
        watches.delete(contextId);
        watches.set(contextId, known);
        if (app !== undefined) known.app = app;
        return { watch: known, newly: false, evicted: null };
      }
      let evicted: string | null = null;
      if (watches.size >= maxWatched) {
        evicted = watches.keys().next().value!;
        await this.unwatch(evicted);
      }
      const watch: Watch = {
        contextId,
        state: "pending",
        problem: null,
        log: createLog(seq),
        app,
      };
      watches.set(contextId, watch);
      options.onWatchedChange?.();
      await confirm(watch);
      // A context the node will not stream is not kept: the caller learns why, and a later watch asks again.
      if (watch.state === "refused") await this.unwatch(contextId);
      return { watch, newly: true, evicted };
    },
    async unwatch(contextId) {
      const watch = watches.get(contextId);
      if (!watch) return false;
      watches.delete(contextId);
      options.onWatchedChange?.();
      for (const waiter of [...watch.log.waiters]) waiter();
      settle(watch, watch.state, watch.problem);
      if (api !== null && sessionId !== null) {
        await api.unsubscribe(sessionId, [contextId]).catch((error) =>
          log.debug(`unsubscribe ${contextId} failed: ${error}`)
        );
      }
      if (watches.size === 0) {
        // Nothing left to watch: close the stream, and start a fresh session next time (the node keeps a
        // session's subscriptions for a day; a resumed one would stream what is no longer watched).
        if (current) quitting = true;
        current?.abort();
        wake?.();
        lastEventId = null;
      }
      return true;
    },
    get: (contextId) => watches.get(contextId),
    watched: () => [...watches.keys()],
    read: (watch, after, match, limit) => read(watch.log, after, match, limit),
    wait(watch, after, match, { timeoutMs, signal, tickMs, tick }) {
      return new Promise<void>((resolve) => {
        const started = Date.now();
        const finish = () => {
          clearTimeout(timer);
          clearInterval(ticker);
          watch.log.waiters.delete(check);
          signal.removeEventListener("abort", finish);
          resolve();
        };
        const check = () => {
          if (!watches.has(watch.contextId) || read(watch.log, after, match, 1).entries.length) {
            finish();
          }
        };
        const timer = setTimeout(finish, timeoutMs);
        const ticker = tick && tickMs
          ? setInterval(() => tick(Date.now() - started), tickMs)
          : undefined;
        signal.addEventListener("abort", finish, { once: true });
        watch.log.waiters.add(check);
        if (signal.aborted) finish();
        else check();
      });
    },
    status: () => ({
      connected: sessionId !== null,
      watched: watches.size,
      reconnects,
      lastProblem,
    }),
    close() {
      closed = true;
      current?.abort();
      wake?.();
      for (const id of [...watches.keys()]) {
        const watch = watches.get(id)!;
        watches.delete(id);
        for (const waiter of [...watch.log.waiters]) waiter();
      }
    },
  };

  /** Subscribes now when connected, else starts the stream; waits up to SUBSCRIBE_WAIT_MS for the answer. */
  function confirm(watch: Watch): Promise<void> {
    return new Promise<void>((resolve) => {
      // While the stream is known to fail, one quick try: a node without events must not slow select_app down.
      const timer = setTimeout(done, lastProblem === null ? SUBSCRIBE_WAIT_MS : 1_000);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      const set = confirmed.get(watch.contextId) ?? new Set();
      set.add(done);
      confirmed.set(watch.contextId, set);
      if (sessionId !== null) void subscribe([watch.contextId]);
      else {
        ensureRunning();
        wake?.(); // a stream waiting out its backoff tries again at once
      }
    });
  }
}
