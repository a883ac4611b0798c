// Own writes across processes: a `mero-mcp watch` beside a server that shares its state directory must not tell the
// server's own writes as news. The server already knows its echoes (own_writes.ts, in memory); here each write it
// sends also leaves a small claim file in `<state dir>/writes/`, and the watch process, which tells a burst only after
// it settles (bursts.ts), reads the claims then and takes a state change for a write's echo by the same rule: a claim
// of that context begun before the change arrived, still in flight or answered at most ECHO_MS before it. Files are
// written without waiting (the judgement comes a settle time later) and removed once no watch could still need them.

import { join } from "node:path";
import { createOwnWrites, ECHO_MS, type OwnWrites } from "./own_writes.ts";
import type { Entry } from "./log.ts";
import { log } from "../lib/log.ts";

/** The folder of claim files in the state directory. */
export const WRITES_DIR = "writes";
/** How long an answered claim's file stays: longer than a burst can wait to be told (bursts.ts INTERVAL_MS). */
export const CLAIM_KEEP_MS = 10_000;
/** A claim still "in flight" after this long was left by a process that died: it is ignored and removed. */
export const STALE_CLAIM_MS = 120_000;
/** The most claim files read for one context in one judgement. */
const MAX_CLAIMS_READ = 256;

let seq = 0;

/**
 * The in-memory record of this process's writes (own_writes.ts), with each write also claimed on disk for a watch
 * process beside it. A claim that cannot be written costs only that: the watch may tell that write as news.
 */
export function recordedOwnWrites(
  stateDir: string,
  inner: OwnWrites = createOwnWrites(),
): OwnWrites {
  const dir = join(stateDir, WRITES_DIR);
  let made: Promise<void> | null = null;
  const ready = () => made ??= Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  return {
    ...inner,
    begin(contextId) {
      const finish = inner.begin(contextId);
      const file = join(dir, `${contextId}.${Date.now()}.${Deno.pid}-${++seq}`);
      const written = ready().then(() => Deno.writeTextFile(file, "", { mode: 0o600 }))
        .catch((error) => log.debug(`write claim not recorded: ${error}`));
      return (ran) => {
        finish(ran);
        const until = ran === false ? 0 : Date.now() + ECHO_MS;
        void written.then(() => Deno.writeTextFile(file, String(until))).catch(() => {});
        const timer = setTimeout(
          () => void Deno.remove(file).catch(() => {}),
          Math.max(0, until - Date.now()) + CLAIM_KEEP_MS,
        );
        Deno.unrefTimer(timer);
      };
    },
  };
}

/** One claim as read back: when its write began, and until when its echo may come (null: still in flight). */
export interface Claim {
  name: string;
  start: number;
  until: number | null;
}

/** The claims of a context in the state directory, oldest first; stale ones are removed on the way. */
export async function readClaims(stateDir: string, contextId: string): Promise<Claim[]> {
  const dir = join(stateDir, WRITES_DIR);
  const claims: Claim[] = [];
  const now = Date.now();
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.startsWith(`${contextId}.`)) continue;
      const start = Number(entry.name.slice(contextId.length + 1).split(".")[0]);
      if (!Number.isFinite(start)) continue;
      const text = await Deno.readTextFile(join(dir, entry.name)).catch(() => null);
      if (text === null) continue;
      const until = text.trim() === "" ? null : Number(text);
      const lapsed = until === null ? now - start > STALE_CLAIM_MS : until + CLAIM_KEEP_MS < now;
      if (lapsed) {
        void Deno.remove(join(dir, entry.name)).catch(() => {});
        continue;
      }
      claims.push({ name: entry.name, start, until: Number.isFinite(until) ? until : null });
      if (claims.length >= MAX_CLAIMS_READ) break;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) log.debug(`write claims not read: ${error}`);
  }
  return claims.sort((a, b) => a.start - b.start);
}

/**
 * Marks as `own` each state change among `entries` that a claim accounts for: a claim begun before the change
 * arrived, in flight or answered at most ECHO_MS before it (its `until`). Each claim accounts for one change; `spent` remembers
 * the claims used (a later burst of the same context must not use them again).
 */
export function markEchoes(entries: Entry[], claims: Claim[], spent: Set<string>): number {
  let marked = 0;
  for (const entry of entries) {
    if (entry.type !== "StateMutation" || entry.own) continue;
    const claim = claims.find((c) =>
      !spent.has(c.name) && c.start <= entry.at && (c.until === null || c.until >= entry.at)
    );
    if (!claim) continue;
    spent.add(claim.name);
    entry.own = true;
    marked++;
  }
  if (spent.size > 4_096) {
    const keep = new Set(claims.map((c) => c.name));
    for (const name of spent) if (!keep.has(name)) spent.delete(name);
  }
  return marked;
}
