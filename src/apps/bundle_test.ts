import assert from "assert";
import { gzipSync } from "fflate";
import { createTar } from "nanotar";
import { isGzip, normalizeEntryPath, readBundleEntry, unitArtifacts } from "./bundle.ts";

const text = (bytes: Uint8Array | null) => bytes === null ? null : new TextDecoder().decode(bytes);

function mpk(files: { name: string; data: string | Uint8Array }[]): Uint8Array {
  return gzipSync(createTar(files));
}

Deno.test("an entry is found by its path, with or without ./, after others; a missing one is null", async () => {
  const archive = mpk([
    { name: "app.wasm", data: new Uint8Array(3000) },
    { name: "./res/abi.json", data: '{"schema_version":"wasm-abi/1"}' },
    { name: "manifest.json", data: '{"package":"com.x.y"}' },
  ]);
  assert.ok(isGzip(archive));
  assert.equal(
    text(await readBundleEntry(archive, "manifest.json", 1024)),
    '{"package":"com.x.y"}',
  );
  assert.equal(
    text(await readBundleEntry(archive, "res/abi.json", 1024)),
    '{"schema_version":"wasm-abi/1"}',
  );
  assert.equal((await readBundleEntry(archive, "./app.wasm", 4096))?.length, 3000);
  assert.equal(await readBundleEntry(archive, "other.json", 1024), null);
});

Deno.test("bounds: an entry over its cap, an archive that unpacks past the total, and data that is not gzip", async () => {
  const archive = mpk([{ name: "abi.json", data: new Uint8Array(5000) }]);
  await assert.rejects(readBundleEntry(archive, "abi.json", 4096), /5000 bytes, over the 4096/);
  const bomb = mpk([{ name: "zeros", data: new Uint8Array(4 * 1024 * 1024) }, {
    name: "abi.json",
    data: "{}",
  }]);
  assert.ok(bomb.length < 64 * 1024, "highly compressible");
  await assert.rejects(
    readBundleEntry(bomb, "abi.json", 1024, 1024 * 1024),
    /unpacks to more than 1048576 bytes/,
  );
  assert.equal(text(await readBundleEntry(bomb, "abi.json", 1024, 8 * 1024 * 1024)), "{}");
  await assert.rejects(readBundleEntry(new Uint8Array([1, 2, 3]), "a", 10), /not valid gzip/);
});

Deno.test("a unit's artifacts: a named service's own, else the single-service top level", () => {
  const multi = {
    services: [
      { name: "registry", wasm: { path: "registry.wasm" }, abi: { path: "registry.abi.json" } },
      { name: "docs", wasm: { path: "docs.wasm" } },
    ],
    wasm: { path: "ignored.wasm" },
  };
  assert.deepEqual(unitArtifacts(multi, "registry"), {
    abi: "registry.abi.json",
    wasm: "registry.wasm",
  });
  assert.deepEqual(unitArtifacts(multi, "docs"), { abi: null, wasm: "docs.wasm" });
  assert.throws(
    () => unitArtifacts(multi, "nope"),
    /no service "nope" \(its services: registry, docs\)/,
  );
  assert.throws(() => unitArtifacts(multi, null), /no service to pick/);
  assert.deepEqual(unitArtifacts({ wasm: { path: "a.wasm" }, abi: { path: "a.json" } }, null), {
    abi: "a.json",
    wasm: "a.wasm",
  });
  assert.deepEqual(
    unitArtifacts({ services: [{ name: "only", wasm: { path: "o.wasm" } }] }, null),
    {
      abi: null,
      wasm: "o.wasm",
    },
  );
  assert.equal(normalizeEntryPath("./a//b/./c.json"), "a/b/c.json");
});
