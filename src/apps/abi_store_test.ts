import assert from "node:assert/strict";
import { join } from "path";
import { abiFileName, createAbiStore, MAX_STORED_ABI_BYTES } from "./abi_store.ts";

Deno.test("ABIs round-trip by a hashed file name; oversized, missing or non-JSON files read as none", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = createAbiStore(dir);
    const key = "../../etc/passwd:svc";
    const name = await abiFileName(key);
    assert.match(name, /^abi-[0-9a-f]{32}\.json$/, "no id can name a path");
    assert.equal(await store.read(key), null);
    await store.write(key, { schema_version: "wasm-abi/1", methods: [] });
    assert.deepEqual(await store.read(key), { schema_version: "wasm-abi/1", methods: [] });
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), [name], "no temp file left");

    await store.write("big", 2n ** 70n); // not plain JSON: not kept
    assert.equal(await store.read("big"), null);
    await Deno.writeTextFile(
      join(dir, await abiFileName("huge")),
      " ".repeat(MAX_STORED_ABI_BYTES + 1),
    );
    assert.equal(await store.read("huge"), null);
    await Deno.writeTextFile(join(dir, await abiFileName("bad")), "{not json");
    assert.equal(await store.read("bad"), null);
    await store.remove(key);
    assert.equal(await store.read(key), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
