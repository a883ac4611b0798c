import assert from "node:assert/strict";
import { join } from "path";
import { abiFileName, createAbiStore, MAX_STORED_ABI_BYTES, nodeScope } from "./abi_store.ts";

const NODE = nodeScope("http://127.0.0.1:2528", "7L2xNXgt");
/** The file a key is kept in for NODE. */
const fileName = (key: string) => abiFileName(`${NODE}\n${key}`);

Deno.test("ABIs round-trip by a hashed file name; oversized, missing or non-JSON files read as none", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = createAbiStore(dir, () => Promise.resolve(NODE));
    const key = "../../etc/passwd:svc";
    const name = await fileName(key);
    assert.match(name, /^abi-[0-9a-f]{32}\.json$/, "no id can name a path");
    assert.equal(await store.read(key, "claimed"), null);
    await store.write(key, { schema_version: "wasm-abi/1", methods: [] }, "claimed");
    assert.deepEqual(await store.read(key, "claimed"), {
      schema_version: "wasm-abi/1",
      methods: [],
    });
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), [name], "no temp file left");

    await store.write("big", 2n ** 70n, "claimed"); // not plain JSON: not kept
    assert.equal(await store.read("big", "claimed"), null);
    await Deno.writeTextFile(
      join(dir, await fileName("huge")),
      " ".repeat(MAX_STORED_ABI_BYTES + 1),
    );
    assert.equal(await store.read("huge", "claimed"), null);
    await Deno.writeTextFile(join(dir, await fileName("bad")), "{not json");
    assert.equal(await store.read("bad", "claimed"), null);
    await store.remove(key, "claimed");
    assert.equal(await store.read(key, "claimed"), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an ABI kept for one node is not read for another: another address, or the same address and identity", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const scopes = [
      nodeScope("http://127.0.0.1:2528", "7L2xNXgt"),
      nodeScope("http://127.0.0.1:2428", "7L2xNXgt"),
      nodeScope("http://127.0.0.1:2528", "9QwErTy"),
      nodeScope("http://127.0.0.1:2528", null),
    ];
    const stores = scopes.map((scope) => createAbiStore(dir, () => Promise.resolve(scope)));
    await stores[0].write("blob:", { schema_version: "wasm-abi/1", methods: [] }, "claimed");
    assert.deepEqual(await stores[0].read("blob:", "claimed"), {
      schema_version: "wasm-abi/1",
      methods: [],
    });
    for (const other of stores.slice(1)) assert.equal(await other.read("blob:", "claimed"), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a verified ABI (from bytes whose id was computed) is kept by content: every node's store reads it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const [a, b] = ["http://127.0.0.1:2428", "http://127.0.0.1:2429"].map((url) =>
      createAbiStore(dir, () => Promise.resolve(nodeScope(url, "key")))
    );
    const doc = { schema_version: "wasm-abi/1", methods: [] };
    await a.write("blob:", doc, "verified");
    assert.deepEqual(await b.read("blob:", "verified"), doc);
    assert.equal(await b.read("blob:", "claimed"), null, "a claimed one stays with its node");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
