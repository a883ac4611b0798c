// The contexts whose events mero-mcp watches, over the process's one event stream (stream.ts). The stream is opened
// when the first context is watched and released when the last one is let go, so a process that watches nothing
// holds no connection. Every watched context is subscribed again on each connect, and gets a gap entry whenever
// events may have been missed. At most MAX_WATCHED at once, least recently used let go first.

import type { EventsApi } from "../mero/mod.ts";
import { log } from "../lib/log.ts";
import { createListeners } from "../lib/listeners.ts";
import {
  addWaiter,
  append,
  type ContextLog,
  createCursors,
  createLog,
  type Cursors,
  type Entry,
  type Found,
  read,
  removeWaiter,
  wakeAll,
} from "./log.ts";
import { createEventStream, type NodeEvent } from "./stream.ts";
import { createOwnWrites, type OwnWrites } from "./own_writes.ts";
import { createFrameFolder } from "./frames.ts";

/** The most contexts watched at once; watching one more lets go of the least recently used. */
export const MAX_WATCHED = 32;
/** How long `watch` waits for the node to confirm a subscription before answering "pending". */
export const SUBSCRIBE_WAIT_MS = 5_000;

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
  maxWatched?: number;
  backoff?: { first: number; max: number };
  /** Silence after which the stream is reopened (stream.ts IDLE_MS by default). */
  idleMs?: number;
  cursors?: Cursors;
  /** This process's writes awaiting their echo (own_writes.ts); a fresh record by default. */
  ownWrites?: OwnWrites;
}

/** The process's watched contexts and their kept events. */
export interface EventHub {
  readonly cursors: Cursors;
  /** The seq of the newest event seen (0 before any). */
  head(): number;
  /** Notes a write this process sends to a context, so that its echo is marked `own` (own_writes.ts). */
  ownWrite(contextId: string): (ran: boolean | "maybe") => void;
  /**
   * Starts (or refreshes, for the LRU order) watching a context; waits for the node to confirm a new watch at most
   * `confirmMs` (default SUBSCRIBE_WAIT_MS), answering "pending" when it has not by then.
   */
  watch(contextId: string, options?: { confirmMs?: number }): Promise<WatchResult>;
  /** Stops watching; false when it was not watched, or is pinned and `evenPinned` is not given. */
  unwatch(contextId: string, options?: { evenPinned?: boolean }): Promise<boolean>;
  /**
   * Pins a context (or lets it go back to the LRU order): a pinned context is never let go to make room, nor by an
   * agent's unwatch. The channel pins the contexts the person chose; at most half of `maxWatched` may be pinned.
   */
  pin(contextId: string, pinned: boolean): boolean;
  /** Whether a context is pinned. */
  pinned(contextId: string): boolean;
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
  /** Listens for every kept event, called once it is in the context's log. */
  onEvent(listener: (contextId: string, entry: Entry) => void): () => void;
  /** Listens for a context starting or stopping being watched. */
  onWatchedChange(listener: () => void): () => void;
  /** Listens for the node's event stream connecting (problem null) or failing (why). */
  onConnection(listener: (problem: string | null) => void): () => void;
  /** What node_status shows. */
  status(): { connected: boolean; watched: number; reconnects: number; lastProblem: string | null };
  /** Ends the stream and every wait. */
  close(): void;
}

/** A burst of this many events within BURST_WINDOW_MS is marked as a possible gap (core's buffer holds 256). */
export const BURST_EVENTS = 200;
export const BURST_WINDOW_MS = 1_000;

/** Creates the hub; nothing contacts the node until the first `watch`. */
export function createEventHub(options: HubOptions): EventHub {
  const cursors = options.cursors ?? createCursors();
  const ownWrites = options.ownWrites ?? createOwnWrites();
  const maxWatched = options.maxWatched ?? MAX_WATCHED;
  const watches = new Map<string, Watch>(); // insertion order = least recently used first
  const pins = new Set<string>();
  const confirmed = new Map<string, Set<() => void>>(); // waiting for a subscription answer
  const events = createListeners<[string, Entry]>("a kept event");
  const watchedChanges = createListeners<[]>("the watched contexts");
  const connection = createListeners<[string | null]>("the event stream's connection");
  let seq = 0;

  const settle = (watch: Watch, state: WatchState, problem: string | null) => {
    watch.state = state;
    watch.problem = problem;
    for (const done of confirmed.get(watch.contextId) ?? []) done();
    confirmed.delete(watch.contextId);
  };

  const gapAll = (why: string) => {
    folder.flush(); // what came before the gap is told before it
    const at = Date.now();
    for (const watch of watches.values()) {
      append(watch.log, { seq: ++seq, at, type: "Gap", data: null, bytes: 0, gap: why });
    }
  };

  // Core's node-wide broadcast channel holds 256 events, and a subscriber that lags behind it loses the overflow
  // without a gap in the ids (crates/node/src/constants.rs; node/primitives client.rs). What can be seen
  // from here is a burst near that size: it is marked as a possible gap, once per burst.
  let burst: number[] = [];
  let burstMarked = false;
  const watchBurst = (at: number) => {
    burst.push(at);
    if (burst.length > BURST_EVENTS * 2) burst = burst.slice(-BURST_EVENTS);
    const recent = burst.filter((t) => at - t < BURST_WINDOW_MS).length;
    if (recent < BURST_EVENTS) {
      burstMarked = false;
      return;
    }
    if (burstMarked) return;
    burstMarked = true;
    gapAll(
      `the node sent ${recent} events within ${
        BURST_WINDOW_MS / 1000
      } s; its event buffer holds 256 for all contexts together, and a reader that falls behind loses the rest without any sign in the ids`,
    );
  };

  // A peer's write comes as two frames with one root: folded into one entry, the one with the app's events.
  const folder = createFrameFolder(({ contextId, type, data, bytes }) => {
    const watch = watches.get(contextId);
    if (!watch) return;
    const entry: Entry = { seq: ++seq, at: Date.now(), type, data, bytes };
    if (type === "StateMutation" && ownWrites.claim(contextId)) entry.own = true;
    append(watch.log, entry);
    void events.emit(contextId, entry);
  });

  const keep = ({ event, bytes }: NodeEvent) => {
    watchBurst(Date.now());
    const { contextId, type, data } = event;
    if (typeof contextId !== "string" || typeof type !== "string" || !KEPT.has(type)) return;
    if (!watches.has(contextId)) return;
    folder.push({ contextId, type, data: data ?? null, bytes });
  };

  const stream = createEventStream({
    connect: options.connect,
    backoff: options.backoff,
    idleMs: options.idleMs,
    wanted: () => watches.size > 0,
    onConnect: () => {
      void connection.emit(null);
      void subscribe([...watches.keys()]);
    },
    onEvent: keep,
    onGap: gapAll,
    onProblem(text) {
      void connection.emit(text);
      // Whoever waits for a subscription learns now that it will not come soon (a node without events answers
      // `/sse` with a 404 at once: select_app must not wait out SUBSCRIBE_WAIT_MS for it).
      for (const watch of watches.values()) {
        if (watch.state === "pending") settle(watch, "pending", text);
        else if (watch.state === "subscribed") watch.state = "pending";
      }
    },
  });

  const subscribe = async (ids: string[]) => {
    const session = stream.session();
    if (session === null || ids.length === 0) return;
    try {
      const accepted = new Set(await session.api.subscribe(session.id, ids));
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

  /** Subscribes now when connected, else starts the stream; waits up to SUBSCRIBE_WAIT_MS for the answer. */
  const confirm = (watch: Watch, confirmMs: number) =>
    new Promise<void>((resolve) => {
      // While the stream is known to fail, one quick try: a node without events must not slow select_app down.
      const failing = stream.status().lastProblem !== null;
      const timer = setTimeout(done, Math.min(confirmMs, failing ? 1_000 : SUBSCRIBE_WAIT_MS));
      function done() {
        clearTimeout(timer);
        resolve();
      }
      const set = confirmed.get(watch.contextId) ?? new Set();
      set.add(done);
      confirmed.set(watch.contextId, set);
      if (stream.session() !== null) void subscribe([watch.contextId]);
      else stream.start();
    });

  const hub: EventHub = {
    cursors,
    head: () => seq,
    ownWrite: (contextId) => ownWrites.begin(contextId),
    async watch(contextId, { confirmMs = SUBSCRIBE_WAIT_MS } = {}) {
      const known = watches.get(contextId);
      // Refused on a resubscribe (membership lost): asked again, it is asked of the node again.
      if (known?.state === "refused") await hub.unwatch(contextId, { evenPinned: true });
      else if (known) {
        watches.delete(contextId);
        watches.set(contextId, known);
        return { watch: known, newly: false, evicted: null };
      }
      let evicted: string | null = null;
      if (watches.size >= maxWatched) {
        evicted = [...watches.keys()].find((id) => !pins.has(id))!;
        await hub.unwatch(evicted);
      }
      const watch: Watch = { contextId, state: "pending", problem: null, log: createLog(seq) };
      watches.set(contextId, watch);
      void watchedChanges.emit();
      await confirm(watch, confirmMs);
      // A context the node will not stream is not kept: the caller learns why, and a later watch asks again.
      if (watch.state === "refused") await hub.unwatch(contextId, { evenPinned: true });
      return { watch, newly: true, evicted };
    },
    async unwatch(contextId, { evenPinned = false } = {}) {
      const watch = watches.get(contextId);
      if (!watch || (pins.has(contextId) && !evenPinned)) return false;
      watches.delete(contextId);
      pins.delete(contextId);
      void watchedChanges.emit();
      wakeAll(watch.log);
      settle(watch, watch.state, watch.problem);
      const session = stream.session();
      if (session !== null) {
        await session.api.unsubscribe(session.id, [contextId]).catch((error) =>
          log.debug(`unsubscribe ${contextId} failed: ${error}`)
        );
      }
      if (watches.size === 0) stream.release();
      return true;
    },
    pin(contextId, pinned) {
      if (!pinned) return pins.delete(contextId);
      if (!watches.has(contextId) || pins.size >= Math.floor(maxWatched / 2)) return false;
      pins.add(contextId);
      return true;
    },
    pinned: (contextId) => pins.has(contextId),
    get: (contextId) => watches.get(contextId),
    watched: () => [...watches.keys()],
    read: (watch, after, match, limit) => read(watch.log, after, match, limit),
    wait(watch, after, match, { timeoutMs, signal, tickMs, tick }) {
      return new Promise<void>((resolve) => {
        const started = Date.now();
        const finish = () => {
          clearTimeout(timer);
          clearInterval(ticker);
          removeWaiter(watch.log, check);
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
        addWaiter(watch.log, check);
        if (signal.aborted) finish();
        else check();
      });
    },
    onEvent: events.subscribe,
    onWatchedChange: watchedChanges.subscribe,
    onConnection: connection.subscribe,
    status: () => {
      const { connected, reconnects, lastProblem } = stream.status();
      return { connected, watched: watches.size, reconnects, lastProblem };
    },
    close() {
      stream.close();
      pins.clear();
      for (const [id, watch] of [...watches]) {
        watches.delete(id);
        wakeAll(watch.log);
      }
    },
  };
  return hub;
}
