// Results too big to return whole, kept a little while as `calimero://results/{id}` resources: the tool's answer
// carries a readable head and a resource_link, and the client reads the whole value with resources/read. Bounded
// in time, count, bytes and reads, so a burst of big answers cannot make the process hold them for long.

import { resultUri, resultUriId } from "../answer/uris.ts";

/** How long a kept result can be read. */
export const RESULT_TTL_MS = 10 * 60_000;
/** How many reads a kept result allows. */
export const RESULT_READS = 3;
/** At most this many results are kept; the oldest go first. */
const MAX_RESULTS = 32;
/** At most this many characters (UTF-16 units) are kept in all (≈ 64 MiB of strings at 2 bytes each). */
const MAX_CHARS = 32 * 1024 * 1024;

interface Kept {
  text: string;
  mimeType: string;
  expires: number;
  readsLeft: number;
}

/** A kept result as resources/read serves it. */
export interface KeptResult {
  text: string;
  mimeType: string;
}

/** The process's kept results. */
export interface ResultStore {
  /** Keeps `text`; its URI, or null when it is larger than the whole store may hold. */
  keep(text: string, mimeType: string): string | null;
  /** The kept result at `uri` (one read spent), or null when it is unknown, expired or read up. */
  read(uri: string): KeptResult | null;
  /** Whether `uri` names a result this store keeps now (no read spent). */
  has(uri: string): boolean;
}

/** A store with the module's bounds; `now` is for tests. */
export function createResultStore(now: () => number = Date.now): ResultStore {
  const kept = new Map<string, Kept>(); // insertion order: oldest first
  let chars = 0;
  const drop = (id: string) => {
    const entry = kept.get(id);
    if (!entry) return;
    chars -= entry.text.length;
    kept.delete(id);
  };
  const sweep = () => {
    const t = now();
    for (const [id, entry] of kept) if (entry.expires <= t) drop(id);
  };
  const live = (uri: string): [string, Kept] | null => {
    sweep();
    const id = resultUriId(uri);
    const entry = id === null ? undefined : kept.get(id);
    return id !== null && entry ? [id, entry] : null;
  };
  return {
    keep(text, mimeType) {
      if (text.length > MAX_CHARS) return null;
      sweep();
      while (kept.size >= MAX_RESULTS || chars + text.length > MAX_CHARS) {
        drop(kept.keys().next().value!);
      }
      const id = crypto.randomUUID();
      kept.set(id, { text, mimeType, expires: now() + RESULT_TTL_MS, readsLeft: RESULT_READS });
      chars += text.length;
      return resultUri(id);
    },
    read(uri) {
      const found = live(uri);
      if (!found) return null;
      const [id, entry] = found;
      if (--entry.readsLeft <= 0) drop(id);
      return { text: entry.text, mimeType: entry.mimeType };
    },
    has: (uri) => live(uri) !== null,
  };
}
