import assert from "node:assert/strict";
import type { CatalogUnit } from "./catalog.ts";
import { scriptSlugs } from "./script_slugs.ts";

const unit = (applicationId: string, pkg: string, service: string | null = null) =>
  ({ applicationId, package: pkg, service, serviceCount: service ? 2 : 0 }) as CatalogUnit;

Deno.test("a unit's script name is its generated tools' prefix; without tools, naming's slug, numbered on a clash", () => {
  const kv = unit("A1", "com.calimero.kv-store");
  const other = unit("B2", "org.other.kv-store");
  const units = [kv, other];
  const names = new Map([
    ["kv_store_a1abcd_get", { applicationId: "A1", service: null, method: "get" }],
    ["kv_store_b2abcd_get", { applicationId: "B2", service: null, method: "get" }],
  ]);
  const slugs = scriptSlugs(units, names);
  assert.deepEqual([...slugs.keys()], ["kv_store_a1abcd", "kv_store_b2abcd"]);
  assert.equal(scriptSlugs(units, names), slugs, "the same map while nothing changed");
  const bare = scriptSlugs([kv, other], new Map());
  assert.deepEqual([...bare.keys()], ["kv_store", "kv_store_2"]);
  assert.equal(bare.get("kv_store_2"), other);
});
