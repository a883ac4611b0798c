import assert from "assert";
import { createServiceReader } from "./services.ts";
import type { Application } from "../mero/mod.ts";

function listed(id: string, bytecode: string): Application {
  return { id, blob: { bytecode, compiled: "" }, size: 0, source: "", metadata: [] };
}

const TWO = { registry: { bytecode: "r", compiled: "" }, docs: { bytecode: "d", compiled: "" } };

Deno.test("services come from each app's own record, read once per bytecode blob", async () => {
  const reads: string[] = [];
  let drive: Application = { ...listed("Drive", "bundle-1"), services: TWO };
  const reader = createServiceReader((id) => {
    reads.push(id);
    return Promise.resolve(id === "Drive" ? drive : listed(id, "kv-1"));
  });
  const first = await reader.withServices([listed("Drive", "bundle-1"), listed("Kv", "kv-1")]);
  assert.deepEqual(first.map((a) => Object.keys(a.services ?? {})), [["registry", "docs"], []]);
  assert.deepEqual(reads.sort(), ["Drive", "Kv"]);

  reads.length = 0;
  await reader.withServices([listed("Drive", "bundle-1"), listed("Kv", "kv-1")]);
  assert.deepEqual(reads, [], "an idle poll reads no record");

  drive = { ...listed("Drive", "bundle-2"), services: { docs: TWO.docs } };
  const upgraded = await reader.withServices([listed("Drive", "bundle-2"), listed("Kv", "kv-1")]);
  assert.deepEqual(reads, ["Drive"], "a new bytecode blob is read again");
  assert.deepEqual(Object.keys(upgraded[0].services!), ["docs"]);
});

Deno.test("a record that cannot be read is asked again next time; a listed services map is used as is", async () => {
  let fail = true;
  const reads: string[] = [];
  const reader = createServiceReader((id) => {
    reads.push(id);
    return fail
      ? Promise.reject(new Error("down"))
      : Promise.resolve({ ...listed(id, "b"), services: TWO });
  });
  const down = await reader.withServices([listed("Drive", "b")]);
  assert.equal(down[0].services, undefined);
  fail = false;
  const up = await reader.withServices([listed("Drive", "b")]);
  assert.deepEqual(Object.keys(up[0].services!), ["registry", "docs"]);
  assert.deepEqual(reads, ["Drive", "Drive"]);
  const carried = await reader.withServices([{ ...listed("Old", "o"), services: TWO }]);
  assert.deepEqual(Object.keys(carried[0].services!), ["registry", "docs"]);
  assert.deepEqual(reads, ["Drive", "Drive"], "no read for a list that carries services");
});
