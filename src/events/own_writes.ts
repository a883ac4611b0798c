// Which of a context's state changes this process caused itself. Core announces a write made through this node with
// the same StateMutation a peer's write makes, and names no author (crates/context/src/handlers/execute/mod.rs:
// sent before the execute answer returns); so a write this server sends is counted, and the next StateMutation of its
// context while the write runs or within ECHO_MS of its answer is taken for its echo. The window is kept that short
// because a write that changed nothing sends no event, and a peer's change landing inside its window is taken wrongly
// (a loop of such writes would otherwise hide every peer write: hostile-input-4 C1).

/** How long after a write's answer its echo may still arrive (core sends it before answering: this is transit). */
export const ECHO_MS = 200;
/** The most writes awaiting their echo per context; older claims lapse first. */
const MAX_CLAIMS = 64;
/** Past this many contexts with claims, the lapsed ones of every context are dropped (writes to many contexts). */
const SWEEP_AT = 256;

interface Claim {
  /** When the claim lapses (ms since the epoch); null while the write is in flight. */
  until: number | null;
}

/** The writes of this process awaiting their echo, per context. */
export interface OwnWrites {
  /**
   * Notes a write about to be sent; call the result once it is over: whether the node ran it, or `"maybe"` when it
   * was cancelled after it was sent (its echo may still come, and is then not told as another party's).
   */
  begin(contextId: string): (ran: boolean | "maybe") => void;
  /** Whether a state change of the context just now is the echo of one of this process's writes (claims it). */
  claim(contextId: string, now?: number): boolean;
  /** How many contexts hold claims (what the record costs). */
  contexts(): number;
}

/** An empty record; `echoMs` is how long an answered write's echo is awaited. */
export function createOwnWrites(echoMs: number = ECHO_MS): OwnWrites {
  const claims = new Map<string, Claim[]>();
  const live = (contextId: string, now: number): Claim[] => {
    const kept = (claims.get(contextId) ?? []).filter((c) => c.until === null || c.until >= now);
    if (kept.length === 0) claims.delete(contextId);
    else claims.set(contextId, kept);
    return kept;
  };
  return {
    begin(contextId) {
      if (claims.size > SWEEP_AT) { for (const id of [...claims.keys()]) live(id, Date.now()); }
      const list = live(contextId, Date.now());
      const claim: Claim = { until: null };
      list.push(claim);
      if (list.length > MAX_CLAIMS) list.shift();
      claims.set(contextId, list);
      return (ran) => {
        claim.until = ran === false ? 0 : Date.now() + echoMs;
      };
    },
    claim(contextId, now = Date.now()) {
      const list = live(contextId, now);
      if (list.length === 0) return false;
      list.shift();
      if (list.length === 0) claims.delete(contextId);
      return true;
    },
    contexts: () => claims.size,
  };
}
