// A hostile find_methods query, in process: 200 apps × 25 methods, each doc 2,000 characters of random 4–7-letter
// words, searched with 125 distinct 3-letter words (hostile-input round 3, #12). Used by B9; also runnable alone.

import type { CatalogUnit } from "../../src/apps/catalog.ts";
import { buildMethodIndex } from "../../src/apps/method_index.ts";

/** A seeded random generator (mulberry32), so every run searches the same catalog. */
function random(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The catalog's units (only what the index reads) and the hostile query. */
export function hostileCatalog(): { units: CatalogUnit[]; query: string } {
  const next = random(42);
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const word = (min: number, max: number) =>
    Array.from(
      { length: min + Math.floor(next() * (max - min + 1)) },
      () => letters[Math.floor(next() * 26)],
    ).join("");
  const units = Array.from({ length: 200 }, (_, a) => {
    const methods = Array.from({ length: 25 }, (_, m) => {
      let doc = "";
      while (doc.length < 1_990) doc += `${word(4, 7)} `;
      return { name: `${word(4, 7)}_${word(4, 7)}_${m}`, params: [{ name: word(4, 7) }], doc };
    });
    return {
      package: `com.bench.app${a}`,
      displayName: `App ${a}`,
      manifest: { methods, events: [] },
    } as unknown as CatalogUnit;
  });
  const terms = new Set<string>();
  while (terms.size < 125) terms.add(word(3, 3));
  return { units, query: [...terms].join(" ") };
}

/** Milliseconds of one hostile search (after the index is built), best of `rounds`. */
export function hostileSearchMs(rounds = 5): number {
  const { units, query } = hostileCatalog();
  const index = buildMethodIndex(units);
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    index.search(query, 20);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

if (import.meta.main) {
  // deno-lint-ignore no-console -- a command-line measurement
  console.log(`hostile 125-word query on 5,000 methods: ${hostileSearchMs().toFixed(1)} ms`);
}
