// The name a script reaches an app unit by, `calimero.<slug>`: the prefix of that unit's generated tools
// (`kv_store_get` → `kv_store`), so a tool name and a script call name the same app alike. A unit without generated
// tools (the apps toolset off, or over the tool budget) gets naming's own slug, with a number where two would clash.

import type { CatalogUnit } from "./catalog.ts";
import { sanitize, type ToolTarget, unitSlug } from "./names.ts";

/** The last answer per unit list and name map (both are replaced, never changed, when the catalog moves). */
const memo = new WeakMap<
  readonly CatalogUnit[],
  { names: unknown; slugs: Map<string, CatalogUnit> }
>();

/** slug → unit, for every unit of the catalog (the same map again while neither argument changed). */
export function scriptSlugs(
  units: readonly CatalogUnit[],
  names: ReadonlyMap<string, ToolTarget>,
): ReadonlyMap<string, CatalogUnit> {
  const known = memo.get(units);
  if (known?.names === names) return known.slugs;
  const slugs = build(units, names);
  memo.set(units, { names, slugs });
  return slugs;
}

function build(
  units: readonly CatalogUnit[],
  names: ReadonlyMap<string, ToolTarget>,
): Map<string, CatalogUnit> {
  const prefixes = new Map<string, string>(); // "applicationId\0service" → slug
  for (const [name, target] of names) {
    const unitKey = `${target.applicationId}\0${target.service ?? ""}`;
    const tail = `_${sanitize(target.method)}`;
    if (!prefixes.has(unitKey) && name.endsWith(tail) && name.length > tail.length) {
      prefixes.set(unitKey, name.slice(0, -tail.length));
    }
  }
  const slugs = new Map<string, CatalogUnit>();
  for (const unit of units) {
    const given = prefixes.get(`${unit.applicationId}\0${unit.service ?? ""}`);
    let slug = given ?? unitSlug({ ...unit, methods: [] }).slug;
    for (let n = 2; slugs.has(slug); n++) {
      slug = `${given ?? unitSlug({ ...unit, methods: [] }).slug}_${n}`;
    }
    slugs.set(slug, unit);
  }
  return slugs;
}
