// kv-store: a key-value ABI (fixtures/kv-store.abi.json) with a store per context; writes emit the ABI's events
// (Inserted, Updated, Removed, Cleared), only when something changed, as core's apps/kv-store/src/lib.rs does. Missing keys show the three failure
// shapes: `get` → app error (a JSON string), `get_result` → app error (an object), `get_unchecked` → panic.

import { fail, panic } from "../guest.ts";
import type { CallEnv, MethodImpl } from "../types.ts";
import { DATA, dataText } from "./data.ts";
import { type SampleApp, samplePackage } from "./sample.ts";

function items(env: CallEnv): Map<string, string> {
  let map = env.state.items as Map<string, string> | undefined;
  if (!map) env.state.items = map = new Map();
  return map;
}

const str = (value: unknown) => value as string;

const methods: Record<string, MethodImpl> = {
  init: (_args, env) => {
    if (env.state.items) fail("Cannot initialize over already existing state.");
    env.state.items = new Map();
    return null;
  },
  set: ({ key, value }, env) => {
    const map = items(env);
    env.emit(map.has(str(key)) ? "Updated" : "Inserted", { key, value });
    map.set(str(key), str(value));
    return null;
  },
  get: ({ key }, env) => items(env).get(str(key)) ?? fail(`Key not found: ${str(key)}`),
  get_result: ({ key }, env) => items(env).get(str(key)) ?? fail({ kind: "NotFound", data: key }),
  get_unchecked: ({ key }, env) =>
    items(env).get(str(key)) ?? panic("key not found", "apps/kv-store/logic/src/lib.rs:118:38"),
  get_or_insert: ({ key, value }, env) => {
    const map = items(env);
    if (!map.has(str(key))) {
      map.set(str(key), str(value));
      env.emit("Inserted", { key, value });
    }
    return map.get(str(key));
  },
  update_if_exists: ({ key, value }, env) => {
    const map = items(env);
    if (!map.has(str(key))) return false;
    map.set(str(key), str(value));
    env.emit("Updated", { key, value });
    return true;
  },
  remove: ({ key }, env) => {
    const map = items(env);
    const previous = map.get(str(key)) ?? null;
    if (map.delete(str(key))) env.emit("Removed", { key });
    return previous;
  },
  len: (_args, env) => items(env).size,
  entries: (_args, env) => Object.fromEntries([...items(env)].sort(([a], [b]) => a < b ? -1 : 1)),
  clear: (_args, env) => {
    const map = items(env);
    if (map.size > 0) env.emit("Cleared");
    map.clear();
    return null;
  },
};

/** The kv-store sample; its ABI carries docs and hints, which the ABI route drops unless `keepAbiDocs`. */
export const kvStore: SampleApp = {
  name: "kv-store",
  versions: ["1.0.0", "1.1.0"],
  build: ({ version }) => ({
    package: samplePackage("kv-store"),
    version,
    name: "KV Store",
    description: "A key-value store shared by the members of a context.",
    abi: dataText(DATA.kvStoreAbi),
    methods,
  }),
};
