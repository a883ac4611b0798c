// A search across every installed app's methods: words in, the best-matching methods out, ranked. Built once per
// catalog state (a few milliseconds for thousands of methods) as an inverted index: a query costs what its words
// match, not every word of every method, and weighs at most MAX_QUERY_WORDS words.
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

/** One thing a word index holds: its words by field, and how ties are broken. */
export interface WordEntry<T> {
  item: T;
  /** The words of its name (the strongest field), and the name itself (a query that is the whole name wins). */
  name: string[];
  fullName: string;
  /** Words of what it belongs to (an app's package and name; a tool's title). */
  app: string[];
  params: string[];
  doc: string[];
  events: string[];
  /** Ties (same score, same number of name words) go by these, compared one by one. */
  order: readonly string[];
}

/** A word index over some entries (see {@link buildWordIndex}). */
export interface WordIndex<T> {
  size: number;
  /** The best `limit` items for `query` (those that match at all), best first; `keep` filters candidates. */
  search(query: string, limit: number, keep?: (item: T) => boolean): { item: T; score: number }[];
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
  "its",
  "their",
  "our",
  "your",
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
  ["rename", "name", "metadata", "label", "title"],
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

/** The words a search weighs: the query's words without stop words and repeats, the first MAX_QUERY_WORDS. */
export function queryWords(query: string): string[] {
  return [...new Set(words(query).filter((w) => !STOP.has(w)))].slice(0, MAX_QUERY_WORDS);
}

/** The fields a word can stand in, with their scores for the word itself and for a prefix either way. */
const FIELDS = [
  { key: "name", exact: 6, prefix: 4 },
  { key: "app", exact: 3, prefix: 2 },
  { key: "params", exact: 2, prefix: 1.5 },
  { key: "doc", exact: 1.5, prefix: 1 },
  { key: "events", exact: 1, prefix: 0.5 },
] as const;
const NAME = 0;
/** A synonym of the query word in the method's name. */
const SYNONYM_SCORE = 3;
/** The most query words a search weighs (the first ones, after stop words and repeats): bounds its cost. */
export const MAX_QUERY_WORDS = 32;

/** The vocabulary words a query word matches: itself (exact) and, from 3 letters, a prefix either way. */
function matches(q: string, byStem: ReadonlyMap<string, string[]>, has: (w: string) => boolean): {
  exact: string | null;
  prefix: string[];
} {
  const prefix: string[] = [];
  if (q.length >= 3) {
    // Words that start with q, among those that share its first three letters.
    for (const w of byStem.get(q.slice(0, 3)) ?? []) if (w !== q && w.startsWith(q)) prefix.push(w);
    // Words q starts with (of 3 letters or more).
    for (let n = 3; n < q.length; n++) if (has(q.slice(0, n))) prefix.push(q.slice(0, n));
  }
  return { exact: has(q) ? q : null, prefix };
}

/** The most distinct words of a method's doc the index holds: a doc's first ones say what it does. */
export const MAX_DOC_WORDS = 96;

/** The first MAX_DOC_WORDS distinct meaningful words of a doc (read no further than they need). */
function docWords(doc: string): string[] {
  const found = new Set<string>();
  for (const w of words(doc.slice(0, MAX_DOC_WORDS * 24))) {
    if (!STOP.has(w)) found.add(w);
    if (found.size >= MAX_DOC_WORDS) break;
  }
  return [...found];
}

/** The index of `units`' methods (not `init`). */
export function buildMethodIndex(units: readonly CatalogUnit[]): MethodIndex {
  const entries: WordEntry<IndexedMethod>[] = [];
  for (const unit of units) {
    const app = [...new Set([...words(unit.package), ...words(unit.displayName)])];
    const events = [...new Set(unit.manifest.events.flatMap((e) => words(e.name)))];
    for (const method of unit.manifest.methods) {
      if (method.name === "init") continue;
      entries.push({
        item: { unit, method },
        name: words(method.name),
        fullName: method.name.toLowerCase(),
        app,
        params: [...new Set(method.params.flatMap((p) => words(p.name)))],
        doc: docWords(method.doc ?? ""),
        events,
        order: [unit.package, method.name],
      });
    }
  }
  const index = buildWordIndex(entries);
  return {
    size: index.size,
    search: (query, limit, keep) =>
      index.search(query, limit, keep).map(({ item, score }) => ({ ...item, score })),
  };
}

/** A word index: each word of each field → the entries it stands in; scored as this module's header says. */
export function buildWordIndex<T>(entries: readonly WordEntry<T>[]): WordIndex<T> {
  // Inverted: each word → the entries (and fields) it stands in, as entry * FIELDS.length + field.
  const postings = new Map<string, number[]>();
  entries.forEach((entry, e) => {
    FIELDS.forEach(({ key }, f) => {
      for (const w of entry[key]) {
        const list = postings.get(w);
        const code = e * FIELDS.length + f;
        if (!list) postings.set(w, [code]);
        else if (list.at(-1) !== code) list.push(code);
      }
    });
  });
  // Each word of 3 letters or more under its first three: where a query word's longer forms are looked for.
  const byStem = new Map<string, string[]>();
  for (const w of postings.keys()) {
    if (w.length < 3) continue;
    const stem = w.slice(0, 3);
    const list = byStem.get(stem);
    if (list) list.push(w);
    else byStem.set(stem, [w]);
  }
  const has = (w: string) => postings.has(w);
  return {
    size: entries.length,
    search(query, limit, keep) {
      const raw = query.trim().toLowerCase();
      const terms = queryWords(query);
      if (terms.length === 0 || limit <= 0) return [];
      const score = new Float64Array(entries.length);
      const matched = new Uint16Array(entries.length);
      const firstNamed = new Uint8Array(entries.length);
      /** Every vocabulary word some term matches: a name word outside it is one the query does not mention. */
      const mentioned = new Set<string>();
      const best = new Float64Array(entries.length);
      const touched: number[] = [];
      terms.forEach((q, t) => {
        const { exact, prefix } = matches(q, byStem, has);
        const credit = (w: string, kind: "exact" | "prefix") => {
          mentioned.add(w);
          for (const code of postings.get(w) ?? []) {
            const e = Math.floor(code / FIELDS.length);
            const field = FIELDS[code % FIELDS.length];
            const value = kind === "exact" ? field.exact : field.prefix;
            if (best[e] === 0) touched.push(e);
            if (value > best[e]) best[e] = value;
            if (t === 0 && code % FIELDS.length === NAME) firstNamed[e] = 1;
          }
        };
        for (const w of prefix) credit(w, "prefix");
        if (exact !== null) credit(exact, "exact");
        for (const synonym of SYNONYM_OF.get(q) ?? []) {
          for (const code of postings.get(synonym) ?? []) {
            if (code % FIELDS.length !== NAME) continue;
            const e = Math.floor(code / FIELDS.length);
            if (best[e] === 0) touched.push(e);
            if (SYNONYM_SCORE > best[e]) best[e] = SYNONYM_SCORE;
            if (t === 0) firstNamed[e] = 1;
          }
        }
        for (const e of touched) {
          score[e] += best[e];
          matched[e]++;
          best[e] = 0;
        }
        touched.length = 0;
      });
      const hits: { item: T; score: number; words: number; order: readonly string[] }[] = [];
      entries.forEach((entry, e) => {
        if (score[e] === 0 || (keep && !keep(entry.item))) return;
        let total = score[e];
        if (matched[e] === terms.length && terms.length > 1) total *= 1.5;
        // Queries are mostly verb first ("assign …", "create …"): the first word naming the method counts more,
        // and each word of the name the query does not mention counts a little against it.
        if (firstNamed[e]) total += 2;
        total -= 0.5 * entry.name.filter((w) => !mentioned.has(w)).length;
        if (raw === entry.fullName || raw.replace(/[\s-]+/g, "_") === entry.fullName) total += 10;
        hits.push({ item: entry.item, score: total, words: entry.name.length, order: entry.order });
      });
      hits.sort((a, b) => b.score - a.score || a.words - b.words || byOrder(a.order, b.order));
      return hits.slice(0, limit).map(({ item, score }) => ({ item, score }));
    },
  };
}

function byOrder(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = a[i].localeCompare(b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

const indexes = new WeakMap<readonly CatalogUnit[], MethodIndex>();

/** The index of a catalog state's units, built on first use and kept while that state lives. */
export function methodIndexOf(units: readonly CatalogUnit[]): MethodIndex {
  let index = indexes.get(units);
  if (!index) indexes.set(units, index = buildMethodIndex(units));
  return index;
}
