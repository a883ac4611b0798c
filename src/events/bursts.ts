// A context's events gathered into bursts, so that a person's chosen contexts can be told of in a few messages
// rather than one per event: the first event of a quiet context is told of after SETTLE_MS (what arrives meanwhile
// rides along), and after that at most once per INTERVAL_MS. A burst holds counts, never events (they stay in the
// context's bounded log), so a flood costs a few numbers per context however long it lasts.

import type { Entry } from "./log.ts";

/** How long the first event of a quiet context waits for the rest of its burst. */
export const SETTLE_MS = 250;
/** The least time between two bursts told of one context. */
export const INTERVAL_MS = 3_000;
/** The most distinct event names a burst counts one by one; the rest are counted together. */
export const MAX_NAMES = 8;

/** What happened in one context between two tellings. */
export interface Burst {
  contextId: string;
  /** The seq just before the burst's first entry: a read after it returns the burst (and whatever follows). */
  after: number;
  /** The seq of the burst's last entry. */
  through: number;
  /** Entries others caused (this process's own writes and gaps apart). */
  count: number;
  /** Entries taken for the echo of this process's own writes, among the others. */
  own: number;
  /** Gap entries: events may have been missed there. */
  gaps: number;
  /** Entry names (app event names, or node event names) and how often each came, at most MAX_NAMES. */
  names: Map<string, number>;
  /** Entries whose names did not fit in `names`. */
  otherNames: number;
}

/** The options of {@link createBursts}. */
export interface BurstOptions {
  /** Told of each burst as its time comes. */
  onBurst(burst: Burst): void;
  /** The names an entry carries (its app events, or its type); none: it is not news (sync chatter). */
  namesOf(entry: Entry): string[];
  settleMs?: number;
  intervalMs?: number;
}

/** Gathers entries per context into bursts. */
export interface Bursts {
  /** Counts an entry of a context into its burst, starting one (and its timer) if none is open. */
  add(contextId: string, entry: Entry): void;
  /** Drops a context's open burst and its timer (it left the channel). */
  forget(contextId: string): void;
  /** Contexts with an open burst. */
  open(): number;
  /** Ends every timer; nothing more is told. */
  close(): void;
}

/** Bursts that tell `onBurst` of each context's news, paced. */
export function createBursts(options: BurstOptions): Bursts {
  const settleMs = options.settleMs ?? SETTLE_MS;
  const intervalMs = options.intervalMs ?? INTERVAL_MS;
  const open = new Map<string, { burst: Burst; timer: ReturnType<typeof setTimeout> }>();
  const lastTold = new Map<string, number>();

  const tell = (contextId: string) => {
    const held = open.get(contextId);
    if (!held) return;
    open.delete(contextId);
    lastTold.set(contextId, Date.now());
    options.onBurst(held.burst);
  };

  return {
    add(contextId, entry) {
      const names = entry.type === "Gap" ? [] : options.namesOf(entry);
      if (entry.type !== "Gap" && names.length === 0) return;
      let held = open.get(contextId);
      // Nothing to tell yet: a burst opens with what others did (or a gap), not with this process's own echo.
      if (!held && entry.own) return;
      if (!held) {
        const now = Date.now();
        const due = Math.max(now + settleMs, (lastTold.get(contextId) ?? -Infinity) + intervalMs);
        held = {
          burst: {
            contextId,
            after: entry.seq - 1,
            through: entry.seq,
            count: 0,
            own: 0,
            gaps: 0,
            names: new Map(),
            otherNames: 0,
          },
          timer: setTimeout(() => tell(contextId), due - now),
        };
        open.set(contextId, held);
      }
      const { burst } = held;
      burst.through = entry.seq;
      if (entry.type === "Gap") {
        burst.gaps++;
        return;
      }
      if (entry.own) {
        burst.own++;
        return;
      }
      burst.count++;
      for (const name of names) {
        const seen = burst.names.get(name);
        if (seen !== undefined) burst.names.set(name, seen + 1);
        else if (burst.names.size < MAX_NAMES) burst.names.set(name, 1);
        else burst.otherNames++;
      }
    },
    forget(contextId) {
      const held = open.get(contextId);
      if (held) clearTimeout(held.timer);
      open.delete(contextId);
      lastTold.delete(contextId);
    },
    open: () => open.size,
    close() {
      for (const { timer } of open.values()) clearTimeout(timer);
      open.clear();
    },
  };
}

/**
 * The burst counted again from its entries (`entries`: the context's kept entries after `burst.after`), once more of
 * them are known to be this process's own (shared_writes.ts judges a watch's echoes only when the burst is due).
 */
export function recount(
  burst: Burst,
  entries: readonly Entry[],
  namesOf: (entry: Entry) => string[],
): Burst {
  const next: Burst = { ...burst, count: 0, own: 0, gaps: 0, names: new Map(), otherNames: 0 };
  for (const entry of entries) {
    if (entry.seq <= burst.after || entry.seq > burst.through) continue;
    if (entry.type === "Gap") {
      next.gaps++;
      continue;
    }
    const names = namesOf(entry);
    if (names.length === 0) continue;
    if (entry.own) {
      next.own++;
      continue;
    }
    next.count++;
    for (const name of names) {
      const seen = next.names.get(name);
      if (seen !== undefined) next.names.set(name, seen + 1);
      else if (next.names.size < MAX_NAMES) next.names.set(name, 1);
      else next.otherNames++;
    }
  }
  return next;
}
