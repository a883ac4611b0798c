// What mero-mcp keeps of one watched context's events: the most recent ones, bounded in count and bytes, each
// with a sequence number that cursors point at. The node keeps nothing (skip-on-disconnect), so this log and the
// gap entries in it are all an agent can learn about what happened while it was not looking.

/** The most events kept per watched context; older ones are dropped first. */
export const MAX_EVENTS_PER_CONTEXT = 256;
/** The most bytes of event data kept per watched context. */
export const MAX_BYTES_PER_CONTEXT = 1024 * 1024;
/** The most bytes of one event's data kept; a larger event is kept as a marker without its data. */
export const MAX_EVENT_BYTES = 64 * 1024;
/**
 * The most `SyncStatus` entries kept per context, apart from the rest: core sends one on every sync phase change
 * (crates/node/src/sync/session.rs), every 10 s or so per context, and that chatter must not push a
 * context's app events out of its window. The oldest goes first, without counting as a lost event.
 */
export const MAX_SYNC_ENTRIES = 16;

/** One thing that happened in a context, as the node reported it (not yet decoded). */
export interface Entry {
  /** Process-wide sequence number: what a cursor names. */
  seq: number;
  /** When it arrived (ms since the epoch). */
  at: number;
  /** The node's context event type (`StateMutation`, `AppVersionChanged`, `SyncStatus`, `XCall`), or `Gap`. */
  type: string;
  /** The event's `data` as the node sent it; null when it was over MAX_EVENT_BYTES or for a gap. */
  data: unknown;
  bytes: number;
  /** On a gap: why events may be missing just before this point. */
  gap?: string;
  /** The event's data was larger than MAX_EVENT_BYTES and was not kept. */
  oversized?: boolean;
  /** A state change taken for the echo of a write this process sent (own_writes.ts). */
  own?: boolean;
}

/** The kept events of one context. */
export interface ContextLog {
  entries: Entry[];
  bytes: number;
  /** The seq of the newest entry dropped to stay within bounds (0: none). */
  droppedThrough: number;
  /** The seq current when watching started: nothing before it was seen. */
  since: number;
  /** Called whenever an entry is added: only this module's functions touch it. */
  readonly waiters: Set<() => void>;
}

/** Sync rounds failed in a row from which a context is said to keep failing to sync. */
export const SYNC_FAILURES_TOLD = 3;

/**
 * Whether the context keeps failing to sync, from its newest `SyncStatus` (core SyncStatusPayload: `failureCount`,
 * `lastError`): sync chatter is never news, but a context whose peers' writes may not be arriving is worth a note.
 */
export function syncTrouble(
  log: ContextLog,
): { failures: number; lastError: string | null } | null {
  for (let i = log.entries.length - 1; i >= 0; i--) {
    const entry = log.entries[i];
    if (entry.type !== "SyncStatus") continue;
    const data = (entry.data ?? {}) as { failureCount?: unknown; lastError?: unknown };
    const failures = typeof data.failureCount === "number" ? data.failureCount : 0;
    if (failures < SYNC_FAILURES_TOLD) return null;
    return {
      failures,
      lastError: typeof data.lastError === "string" ? data.lastError.slice(0, 200) : null,
    };
  }
  return null;
}

/** A fresh log for a context first watched when the process sequence stood at `since`. */
export function createLog(since: number): ContextLog {
  return { entries: [], bytes: 0, droppedThrough: 0, since, waiters: new Set() };
}

/** Appends an entry (keeping the bounds) and wakes every waiter. */
export function append(log: ContextLog, entry: Entry): void {
  if (entry.bytes > MAX_EVENT_BYTES) {
    entry = { ...entry, data: null, oversized: true };
  }
  if (entry.type === "SyncStatus") {
    let kept = 0;
    for (const e of log.entries) if (e.type === "SyncStatus") kept++;
    if (kept >= MAX_SYNC_ENTRIES) {
      const oldest = log.entries.findIndex((e) => e.type === "SyncStatus");
      const [old] = log.entries.splice(oldest, 1);
      log.bytes -= old.oversized ? 0 : old.bytes;
    }
  }
  log.entries.push(entry);
  log.bytes += entry.oversized ? 0 : entry.bytes;
  while (
    log.entries.length > MAX_EVENTS_PER_CONTEXT ||
    (log.bytes > MAX_BYTES_PER_CONTEXT && log.entries.length > 1)
  ) {
    const old = log.entries.shift()!;
    log.bytes -= old.oversized ? 0 : old.bytes;
    log.droppedThrough = old.seq;
  }
  wakeAll(log);
}

/** Calls `waiter` whenever an entry is added to the log (and on {@link wakeAll}) until it is removed. */
export function addWaiter(log: ContextLog, waiter: () => void): void {
  log.waiters.add(waiter);
}

/** Stops calling `waiter`. */
export function removeWaiter(log: ContextLog, waiter: () => void): void {
  log.waiters.delete(waiter);
}

/** Calls every waiter now (the context stops being watched: each re-checks and finds it gone). */
export function wakeAll(log: ContextLog): void {
  for (const wake of [...log.waiters]) wake();
}

/** What a read found after a cursor. */
export interface Found {
  entries: Entry[];
  /** Entries after the cursor were dropped from the log before this read (it keeps only the latest). */
  lost: boolean;
  /** More matching entries follow the ones returned (the read's limit was reached). */
  more: boolean;
}

/** The entries after `after` that `match` accepts, oldest first, at most `limit`. */
export function read(
  log: ContextLog,
  after: number,
  match: (entry: Entry) => boolean,
  limit: number,
): Found {
  const entries: Entry[] = [];
  let more = false;
  for (const entry of log.entries) {
    if (entry.seq <= after || !match(entry)) continue;
    if (entries.length === limit) {
      more = true;
      break;
    }
    entries.push(entry);
  }
  return { entries, lost: log.droppedThrough > after, more };
}

/** Cursors name a process (a random epoch) and a sequence number: `<epoch>-<seq>`. */
export interface Cursors {
  /** The cursor for sequence number `seq`. */
  format(seq: number): string;
  /** The seq a cursor names; `foreign` for a cursor of another process, `invalid` for anything else. */
  parse(cursor: string): number | "foreign" | "invalid";
}

/** Cursors of this process. */
export function createCursors(epoch: string = crypto.randomUUID().slice(0, 8)): Cursors {
  return {
    format: (seq) => `${epoch}-${seq}`,
    parse(cursor) {
      const m = /^([0-9a-f]{8})-(\d{1,15})$/.exec(cursor);
      if (!m) return "invalid";
      return m[1] === epoch ? Number(m[2]) : "foreign";
    },
  };
}
