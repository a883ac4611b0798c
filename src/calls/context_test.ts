import assert from "assert";
import { base58Encode } from "../../tests/sim_node/base58.ts";
import { contextIdOf, contextService, resolveContext, unknownContext } from "./context.ts";
import type { Context } from "../mero/mod.ts";

Deno.test("an id is used as is, an alias is looked up, and a value that cannot be an alias is not", async () => {
  const id = base58Encode(new Uint8Array(32).fill(9));
  const looked: string[] = [];
  const lookup = (name: string) => {
    looked.push(name);
    return Promise.resolve(name === "shop" ? id : null);
  };
  assert.equal(await contextIdOf(id, lookup), id);
  assert.deepEqual(looked, []);
  assert.equal(await contextIdOf("shop", lookup), id);
  assert.equal(await resolveContext("no such/alias", lookup), null);
  assert.deepEqual(looked, ["shop"]);
  await assert.rejects(contextIdOf("gone", lookup), /"gone" is neither a context id nor an alias/);
  await assert.rejects(contextIdOf("a b", lookup), /neither a context id nor a possible alias/);
});

Deno.test("an unknown context is refused in one sentence that says what to pass", () => {
  assert.equal(
    unknownContext("gone"),
    '"gone" is neither a context id nor an alias on this node. Pass a context id (list_contexts shows them) or an existing alias.',
  );
});

Deno.test("a context runs its named service, else its app's only one, else none", () => {
  const ctx = (serviceName?: string) => ({ id: "c", serviceName }) as unknown as Context;
  assert.equal(contextService(ctx("docs"), { docs: {}, registry: {} }), "docs");
  assert.equal(contextService(ctx(), { docs: {} }), "docs");
  assert.equal(contextService(ctx(), { docs: {}, registry: {} }), null);
  assert.equal(contextService(ctx(), undefined), null);
});
