// A search across every installed app's methods: words in, the best-matching methods out, ranked. Built once per
// catalog state (a few milliseconds for thousands of methods) and matched without allocating per method.
//
// Ranking, per query word, the best of: the method's name (6 for the word itself, 4 for a prefix either way, 3 for
// a synonym), the app's package or display name (3 / 2), a parameter's name (2 / 1.5), the method's doc (1.5 / 1),
// an event the app declares (1 / 0.5). A method that matches every word gets half again; the query's first word
// naming the method adds 2 (queries are mostly verb first); each word of the name the query does not mention takes
// 0.5; a query that is the method's whole name gets 10 more. Ties: fewer name words first, then package and name.

import type { AbiMethod } from "./abi_format.ts";
import type { CatalogUnit } from "./catalog.ts";

/** One method the index knows. */
export interface IndexedMethod {
  unit: CatalogUnit;
  method: AbiMethod;
}

/** A method that matched, with its score. */
export interface MethodHit extends IndexedMethod {
  score: number;
}

interface Entry extends IndexedMethod {
  name: string[];
  fullName: string;
  app: string[];
  params: string[];
  doc: string[];
  events: string[];
}

/** An index over some catalog units. */
export interface MethodIndex {
  /** How many methods it holds. */
  size: number;
  /** The best `limit` methods for `query` (those that match at all), best first; `keep` filters candidates. */
  search(query: string, limit: number, keep?: (m: IndexedMethod) => boolean): MethodHit[];
}

/** Words that carry no meaning in a search. */
const STOP = new Set([
  "a",
  "an",
  "the",
  "to",
  "of",
  "for",
  "in",
  "on",
  "and",
  "or",
  "by",
  "with",
  "is",
  "it",
  "me",
  "my",
  "all",
  "from",
  "that",
  "this",
  "how",
  "do",
  "i",
]);

/** Groups of words that name the same operation in method names. */
const SYNONYMS: string[][] = [
  ["get", "read", "fetch", "view", "show", "find", "lookup", "query", "load"],
  ["set", "update", "put", "write", "edit", "change", "modify", "save", "store"],
  ["delete", "remove", "clear", "erase", "drop", "destroy"],
  ["create", "add", "new", "insert", "make", "open", "post"],
  ["list", "entries", "items", "enumerate"],
  ["count", "len", "length", "size", "total"],
  ["user", "member", "account", "identity", "author"],
  ["message", "post", "comment", "note"],
  ["close", "resolve", "finish", "done", "complete"],
];

const SYNONYM_OF = new Map<string, Set<string>>();
for (const group of SYNONYMS) {
  for (const word of group) {
    const set = SYNONYM_OF.get(word) ?? new Set<string>();
    for (const other of group) if (other !== word) set.add(other);
    SYNONYM_OF.set(word, set);
  }
}

/** Words of a name or a text: camelCase, snake_case, kebab-case and dots split, lower case, plurals folded. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0)
    .map(fold);
}

/** A plural folded to its singular, roughly: `issues` → `issue`, `entries` → `entry`. */
function fold(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** How well one query word matches one field's words: `exact` for the word, `prefix` for a prefix either way. */
function fieldScore(q: string, field: string[], exact: number, prefix: number): number {
  let best = 0;
  for (const w of field) {
    if (w === q) return exact;
    if (best < prefix && q.length >= 3 && w.length >= 3 && (w.startsWith(q) || q.startsWith(w))) {
      best = prefix;
    }
  }
  return best;
}

function synonymScore(q: string, field: string[]): number {
  const same = SYNONYM_OF.get(q);
  if (!same) return 0;
  return field.some((w) => same.has(w)) ? 3 : 0;
}

/** The index of `units`' methods (not `init`). */
export function buildMethodIndex(units: readonly CatalogUnit[]): MethodIndex {
  const entries: Entry[] = [];
  for (const unit of units) {
    const app = [...new Set([...words(unit.package), ...words(unit.displayName)])];
    const events = [...new Set(unit.manifest.events.flatMap((e) => words(e.name)))];
    for (const method of unit.manifest.methods) {
      if (method.name === "init") continue;
      entries.push({
        unit,
        method,
        name: words(method.name),
        fullName: method.name.toLowerCase(),
        app,
        params: [...new Set(method.params.flatMap((p) => words(p.name)))],
        doc: [...new Set(words(method.doc ?? "").filter((w) => !STOP.has(w)))],
        events,
      });
    }
  }
  return {
    size: entries.length,
    search(query, limit, keep) {
      const raw = query.trim().toLowerCase();
      const terms = [...new Set(words(query).filter((w) => !STOP.has(w)))];
      if (terms.length === 0 || limit <= 0) return [];
      const hits: (MethodHit & { words: number })[] = [];
      for (const entry of entries) {
        if (keep && !keep(entry)) continue;
        let score = 0;
        let matched = 0;
        for (const q of terms) {
          const best = Math.max(
            fieldScore(q, entry.name, 6, 4),
            synonymScore(q, entry.name),
            fieldScore(q, entry.app, 3, 2),
            fieldScore(q, entry.params, 2, 1.5),
            fieldScore(q, entry.doc, 1.5, 1),
            fieldScore(q, entry.events, 1, 0.5),
          );
          if (best > 0) matched++;
          score += best;
        }
        if (score === 0) continue;
        if (matched === terms.length && terms.length > 1) score *= 1.5;
        // Queries are mostly verb first ("assign …", "create …"): the first word naming the method counts more,
        // and each word of the name the query does not mention counts a little against it.
        if (fieldScore(terms[0], entry.name, 1, 1) > 0 || synonymScore(terms[0], entry.name) > 0) {
          score += 2;
        }
        score -= 0.5 *
          entry.name.filter((w) => !terms.some((q) => fieldScore(q, [w], 1, 1) > 0)).length;
        if (raw === entry.fullName || raw.replace(/[\s-]+/g, "_") === entry.fullName) score += 10;
        hits.push({ unit: entry.unit, method: entry.method, score, words: entry.name.length });
      }
      hits.sort((a, b) =>
        b.score - a.score || a.words - b.words ||
        a.unit.package.localeCompare(b.unit.package) ||
        a.method.name.localeCompare(b.method.name)
      );
      return hits.slice(0, limit).map(({ unit, method, score }) => ({ unit, method, score }));
    },
  };
}

const indexes = new WeakMap<readonly CatalogUnit[], MethodIndex>();

/** The index of a catalog state's units, built on first use and kept while that state lives. */
export function methodIndexOf(units: readonly CatalogUnit[]): MethodIndex {
  let index = indexes.get(units);
  if (!index) indexes.set(units, index = buildMethodIndex(units));
  return index;
}
