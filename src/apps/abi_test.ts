import assert from "assert";
import { AbiLoadError, createAbiLoader } from "./abi.ts";
import type { AbiAdmin } from "./abi.ts";
import { type Application, NodeHttpError } from "../mero/mod.ts";
import { wasmModule } from "../../tests/sim_node/wasm.ts";
import { DATA, dataText } from "../../tests/sim_node/apps/data.ts";
import { gzipSync } from "fflate";
import { createTar } from "nanotar";
import { blobIdOf } from "../primitives/blob_hash.ts";
import type { AbiStore } from "./abi_store.ts";

const KV_ABI = JSON.parse(dataText(DATA.kvStoreAbi));
const TRACKER_ABI = JSON.parse(dataText(DATA.issueTrackerAbi));
const COVERAGE_ABI = JSON.parse(dataText(DATA.coverageAbi));

function app(id: string, bytecode: string, services?: Record<string, string>): Application {
  return {
    id,
    blob: { bytecode, compiled: `${bytecode}-compiled` },
    size: 1,
    source: "file:///app.mpk",
    metadata: [],
    package: `com.test.${id.toLowerCase()}`,
    ...(services === undefined ? {} : {
      services: Object.fromEntries(
        Object.entries(services).map(([name, code]) => [name, { bytecode: code, compiled: "c" }]),
      ),
    }),
  };
}

function httpError(
  status: number,
  body: string,
  path = "/admin-api/applications/x/abi",
  authError: string | null = null,
) {
  return new NodeHttpError({
    status,
    method: "GET",
    url: `http://node${path}`,
    path,
    body,
    authError,
  });
}

/** The guard's answer to a scoped token on an admin-only route (core crates/server/src/auth.rs). */
const DENIED = () => {
  throw httpError(403, "", "/admin-api/applications/x/abi", "permission_denied");
};

/** A `.mpk` bundle: a gzip'd tar with manifest.json and the named files. */
function bundle(manifest: unknown, files: Record<string, string | Uint8Array>): Uint8Array {
  return gzipSync(createTar([
    { name: "manifest.json", data: JSON.stringify(manifest) },
    ...Object.entries(files).map(([name, data]) => ({ name, data })),
  ]));
}

/** The ids of labelled blobs (a label without a blob is its own id). */
const ids = new Map<string, string>();
/** The node's id for the blob labelled `label` (its bytes' blob id, as the loader checks). */
const id = (label: string) => ids.get(label) ?? label;

/**
 * A fake admin API: answers come from the tables; every call is recorded (a blob by its label). Blobs are held
 * under their real ids (`id(label)`), which the loader checks against the bytes.
 */
async function fakeAdmin(opts: {
  abi?: (appId: string, service: string | undefined) => unknown;
  blobs?: Record<string, Uint8Array>;
}) {
  ids.clear();
  const labels = new Map<string, string>();
  const byId: Record<string, Uint8Array> = {};
  for (const [label, bytes] of Object.entries(opts.blobs ?? {})) {
    const real = await blobIdOf(bytes);
    ids.set(label, real);
    labels.set(real, label);
    byId[real] = bytes;
  }
  const calls: string[] = [];
  const admin: AbiAdmin = {
    getApplicationAbi: (appId, service) => {
      calls.push(`abi ${appId} ${service ?? "-"}`);
      return Promise.resolve().then(() => opts.abi!(appId, service) as never);
    },
    getBlob: (blobId) => {
      calls.push(`blob ${labels.get(blobId) ?? blobId}`);
      const bytes = byId[blobId];
      return bytes === undefined
        ? Promise.reject(httpError(404, '{"error":"Blob not found"}', `/admin-api/blobs/${blobId}`))
        : Promise.resolve(bytes);
    },
  };
  return { admin, calls };
}

const NO_ROUTE = () => {
  throw httpError(404, "");
};

Deno.test("a manifest is fetched once per bytecode blob and refetched after an upgrade", async () => {
  const { admin, calls } = await fakeAdmin({ abi: () => KV_ABI });
  const loader = createAbiLoader(admin);
  const v1 = app("Kv", "blob-v1");
  const first = await loader.load(v1, null);
  assert.deepEqual(
    first.methods.map((m) => m.name),
    KV_ABI.methods.map((m: { name: string }) => m.name),
  );
  assert.equal(await loader.load({ ...v1, version: "again" }, null), first);
  assert.equal(loader.requestCount(), 1);
  assert.equal(loader.cached(v1, null), first);

  const v2 = app("Kv", "blob-v2");
  assert.equal(loader.cached(v2, null), undefined);
  await loader.load(v2, null);
  assert.deepEqual(calls, ["abi Kv -", "abi Kv -"]);
  assert.equal(loader.requestCount(), 2);
});

Deno.test("a service is asked for by name and cached under its own blob", async () => {
  const { admin, calls } = await fakeAdmin({
    abi: (_id, service) => (service === "issue-tracker" ? TRACKER_ABI : KV_ABI),
  });
  const loader = createAbiLoader(admin);
  const multi = app("Multi", "unused", { "issue-tracker": "blob-t", kv: "blob-k" });
  const tracker = await loader.load(multi, "issue-tracker");
  const kv = await loader.load(multi, "kv");
  assert.equal(tracker.methods.length, TRACKER_ABI.methods.length);
  assert.equal(kv.methods.length, KV_ABI.methods.length);
  assert.deepEqual(calls, ["abi Multi issue-tracker", "abi Multi kv"]);
  assert.equal(loader.cached(multi, "kv"), kv);
  assert.equal(loader.cached(multi, null), undefined);
});

Deno.test("a unit the app does not have is refused without a request", async () => {
  const { admin, calls } = await fakeAdmin({ abi: () => KV_ABI });
  const loader = createAbiLoader(admin);
  const cases: [Application, string | null, string][] = [
    [app("M", "x", { a: "ba", b: "bb" }), null, "has several services: a, b. Pass service"],
    [app("M", "x", { a: "ba" }), "zz", `no service "zz". Its services: a`],
    [app("K", "x"), "svc", "has no services; leave service out"],
  ];
  for (const [target, service, text] of cases) {
    await assert.rejects(loader.load(target, service), (error: Error) => {
      assert.ok(error instanceof AbiLoadError && error.message.includes(text), error.message);
      return true;
    });
  }
  assert.deepEqual(calls, []);
});

Deno.test("concurrent loads of one unit share one request", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const { admin, calls } = await fakeAdmin({ abi: () => KV_ABI });
  const slow: AbiAdmin = {
    ...admin,
    getApplicationAbi: async (...args) => {
      await gate;
      return await admin.getApplicationAbi(...args);
    },
  };
  const loader = createAbiLoader(slow);
  const kv = app("Kv", "blob-1");
  const loads = [loader.load(kv, null), loader.load(kv, null), loader.load({ ...kv }, null)];
  release();
  const [a, b, c] = await Promise.all(loads);
  assert.equal(a, b);
  assert.equal(b, c);
  assert.deepEqual(calls, ["abi Kv -"]);
  assert.equal(loader.requestCount(), 1);
});

Deno.test("a malformed manifest is not cached, so the next load asks again", async () => {
  const answers: unknown[] = [{ schema_version: "wasm-abi/1", methods: "nope" }, KV_ABI];
  const { admin, calls } = await fakeAdmin({ abi: () => answers.shift() });
  const loader = createAbiLoader(admin);
  const kv = app("Kv", "blob-1");
  await assert.rejects(loader.load(kv, null), (error: Error) => {
    assert.ok(error instanceof AbiLoadError);
    assert.match(error.message, /com\.test\.kv \(application Kv\).*"methods" must be a JSON array/);
    return true;
  });
  assert.equal(loader.cached(kv, null), undefined);
  const manifest = await loader.load(kv, null);
  assert.equal(manifest.methods.length, KV_ABI.methods.length);
  assert.deepEqual(calls, ["abi Kv -", "abi Kv -"]);
});

Deno.test("another major version is refused with the format's message, and not asked again on every poll", async () => {
  const { admin, calls } = await fakeAdmin({
    abi: () => ({ ...KV_ABI, schema_version: "wasm-abi/2" }),
  });
  const loader = createAbiLoader(admin);
  for (let poll = 0; poll < 3; poll++) {
    await assert.rejects(loader.load(app("Kv", "b"), null), /wasm-abi\/2.*Upgrade mero-mcp/);
  }
  assert.deepEqual(calls, ["abi Kv -"], "the node's settled answer is remembered for a while");
  await assert.rejects(loader.load(app("Kv", "b2"), null), /wasm-abi\/2/);
  assert.equal(calls.length, 2, "an upgrade (a new bytecode blob) is asked at once");
});

Deno.test("a node without the ABI route is read from the unit's bytecode section", async () => {
  const module = wasmModule([
    { name: "name", payload: "ignored" },
    { name: "calimero_abi_v1", payload: JSON.stringify(COVERAGE_ABI) },
  ]);
  const { admin, calls } = await fakeAdmin({ abi: NO_ROUTE, blobs: { "blob-svc": module } });
  const loader = createAbiLoader(admin);
  const target = app("Conf", "blob-main", { svc: id("blob-svc") });
  const manifest = await loader.load(target, "svc");
  assert.equal(manifest.methods.length, COVERAGE_ABI.methods.length);
  assert.equal(await loader.load(target, "svc"), manifest);
  assert.equal(loader.cached(target, "svc"), manifest);
  assert.deepEqual(calls, ["abi Conf svc", "blob blob-svc"]);
  assert.equal(loader.requestCount(), 2);
});

Deno.test("a scoped token the ABI route refuses (403 permission_denied) is served from the bytecode blob", async () => {
  const module = wasmModule([{ name: "calimero_abi_v1", payload: JSON.stringify(KV_ABI) }]);
  const { admin, calls } = await fakeAdmin({ abi: DENIED, blobs: { "kv-wasm": module } });
  const manifest = await createAbiLoader(admin).load(app("Kv", id("kv-wasm")), null);
  assert.equal(manifest.methods.length, KV_ABI.methods.length);
  assert.deepEqual(calls, ["abi Kv -", "blob kv-wasm"]);
});

Deno.test("a .mpk bundle blob gives the ABI file its manifest names, or its wasm's section", async () => {
  const withAbi = bundle(
    { package: "com.test.kv", wasm: { path: "app.wasm" }, abi: { path: "./res/abi.json" } },
    { "app.wasm": new Uint8Array(64), "res/abi.json": JSON.stringify(KV_ABI) },
  );
  const wasmOnly = bundle(
    { package: "com.test.cov", wasm: { path: "cov.wasm" } },
    {
      "cov.wasm": wasmModule([{ name: "calimero_abi_v1", payload: JSON.stringify(COVERAGE_ABI) }]),
    },
  );
  const { admin } = await fakeAdmin({ abi: DENIED, blobs: { a: withAbi, b: wasmOnly } });
  const loader = createAbiLoader(admin);
  assert.equal((await loader.load(app("Kv", id("a")), null)).methods.length, KV_ABI.methods.length);
  assert.equal(
    (await loader.load(app("Cov", id("b")), null)).methods.length,
    COVERAGE_ABI.methods.length,
  );
  const { admin: old } = await fakeAdmin({ abi: NO_ROUTE, blobs: { a: withAbi } });
  assert.equal((await createAbiLoader(old).load(app("Kv", id("a")), null)).methods.length, 11);
});

Deno.test("when the route and the blob are both refused, the error says the token lacks both permissions", async () => {
  const { admin } = await fakeAdmin({ abi: DENIED });
  admin.getBlob = () =>
    Promise.reject(httpError(403, "", "/admin-api/blobs/b", "permission_denied"));
  await assert.rejects(createAbiLoader(admin).load(app("Kv", "b"), null), (e) => {
    assert.ok(e instanceof AbiLoadError);
    assert.match(e.message, /admin tokens only .*403 permission_denied/);
    assert.match(
      e.message,
      /lacks both permissions: use an admin token, or one that may read blobs/,
    );
    return true;
  });
  const broken = bundle({ package: "com.test.x", wasm: { path: "gone.wasm" } }, {});
  const { admin: withBundle } = await fakeAdmin({ abi: DENIED, blobs: { c: broken } });
  await assert.rejects(
    createAbiLoader(withBundle).load(app("X", id("c")), null),
    /the bundle has no gone\.wasm, which its manifest names/,
  );
});

Deno.test("a 404 with a body means an unknown app and does not fall back", async () => {
  const { admin, calls } = await fakeAdmin({
    abi: () => {
      throw httpError(404, '{"error":"Application not found"}');
    },
    blobs: { b: wasmModule([{ name: "calimero_abi_v1", payload: JSON.stringify(KV_ABI) }]) },
  });
  await assert.rejects(createAbiLoader(admin).load(app("Gone", "b"), null), (e) => {
    assert.ok(e instanceof AbiLoadError);
    assert.equal(e.appId, "Gone");
    assert.match(e.message, /application Gone.*Application not found.*uninstalled/);
    assert.ok(e.cause instanceof NodeHttpError);
    return true;
  });
  assert.deepEqual(calls, ["abi Gone -"]);
});

Deno.test("other route errors do not fall back and say what the node answered", async () => {
  const { admin, calls } = await fakeAdmin({
    abi: () => {
      throw httpError(400, '{"error":"no usable ABI"}');
    },
  });
  await assert.rejects(
    createAbiLoader(admin).load(app("Kv", "b"), null),
    /Cannot read the ABI of com\.test\.kv \(application Kv\): .*HTTP 400.*no usable ABI/,
  );
  assert.deepEqual(calls, ["abi Kv -"]);
});

const fallbackFailures: { name: string; blob?: Uint8Array; says: RegExp }[] = [
  { name: "the blob is missing", says: /blob "code-s" failed: .*HTTP 404.*Blob not found/ },
  {
    name: "the blob is not WebAssembly",
    blob: new TextEncoder().encode("<html>not found</html>"),
    says: /Not a WebAssembly module/,
  },
  {
    name: "the bytecode has no ABI section",
    blob: wasmModule([{ name: "other", payload: "x" }]),
    says: /no calimero_abi_v1 custom section/,
  },
  {
    name: "the section is not JSON",
    blob: wasmModule([{ name: "calimero_abi_v1", payload: "{oops" }]),
    says: /section is not valid JSON/,
  },
  {
    name: "the section is not a manifest",
    blob: wasmModule([{ name: "calimero_abi_v1", payload: "{}" }]),
    says: /Not a wasm-abi manifest/,
  },
];

for (const c of fallbackFailures) {
  Deno.test(`when the route is missing and ${c.name}, the error gives both reasons`, async () => {
    const { admin } = await fakeAdmin({ abi: NO_ROUTE, blobs: c.blob ? { "code-s": c.blob } : {} });
    const loader = createAbiLoader(admin);
    const target = app("Kv", "code-main", { s: id("code-s") });
    await assert.rejects(loader.load(target, "s"), (error: Error) => {
      assert.ok(error instanceof AbiLoadError);
      assert.equal(error.service, "s");
      assert.match(error.message, /com\.test\.kv \(application Kv\), service "s"/);
      assert.match(
        error.message,
        /no ABI route \(GET \/admin-api\/.*answered 404 without a body\)/,
      );
      assert.match(error.message, c.says);
      return true;
    });
    assert.equal(loader.cached(target, "s"), undefined);
  });
}

Deno.test("bytes whose blob id is not the one the node gave are refused, not read", async () => {
  const module = wasmModule([{ name: "calimero_abi_v1", payload: JSON.stringify(KV_ABI) }]);
  const { admin } = await fakeAdmin({ abi: NO_ROUTE, blobs: { real: module } });
  admin.getBlob = () => Promise.resolve(module);
  await assert.rejects(
    createAbiLoader(admin).load(app("Kv", "claimed-id"), null),
    /the node served bytes whose blob id is .*, not claimed-id/,
  );
});

Deno.test("a claimed ABI kept on disk serves at once; the node's different answer then replaces it", async () => {
  const honest = KV_ABI;
  const poisoned = {
    ...KV_ABI,
    methods: KV_ABI.methods.map((m: { name: string; params: unknown; returns: unknown }) =>
      m.name === "clear"
        ? { name: m.name, doc: "Safe.", params: m.params, returns: m.returns, intent: "read_only" }
        : m
    ),
  };
  const kept = new Map<string, unknown>([["b::claimed", poisoned]]);
  const store: AbiStore = {
    read: (key, origin) => Promise.resolve(kept.get(`${key}:${origin}`) ?? null),
    write: (key, document, origin) => Promise.resolve(void kept.set(`${key}:${origin}`, document)),
    remove: (key, origin) => Promise.resolve(void kept.delete(`${key}:${origin}`)),
  };
  const { admin, calls } = await fakeAdmin({ abi: () => honest });
  const revised = Promise.withResolvers<void>();
  const loader = createAbiLoader(admin, store, () => revised.resolve());
  const first = await loader.load(app("Kv", "b"), null);
  assert.equal(
    first.methods.find((m) => m.name === "clear")?.intent,
    "read_only",
    "served at once",
  );
  await revised.promise;
  assert.deepEqual(calls, ["abi Kv -"], "asked of the node again, once");
  const now = loader.cached(app("Kv", "b"), null)!;
  assert.notEqual(now.methods.find((m) => m.name === "clear")?.intent, "read_only");
  assert.deepEqual(kept.get("b::claimed"), honest, "and kept instead");
});

Deno.test("an ABI the node refuses as malformed is read from the bytecode; a bytecode ABI that fails too is not asked again each poll", async () => {
  const REFUSED = () => {
    throw httpError(
      400,
      '{"error":"application has no usable embedded ABI (absent or malformed); rebuild it with `cargo mero build`"}',
    );
  };
  // Core refuses an ABI whose methods are not sorted (crates/wasm-abi/src/validate.rs); mero-mcp reads it itself.
  const unsorted = { ...KV_ABI, methods: [...KV_ABI.methods].reverse() };
  const good = wasmModule([{ name: "calimero_abi_v1", payload: JSON.stringify(unsorted) }]);
  const garbled = wasmModule([{
    name: "calimero_abi_v1",
    payload: '{"schema_version": "wasm-abi/1", "meth',
  }]);
  const { admin, calls } = await fakeAdmin({ abi: REFUSED, blobs: { good, garbled } });
  const loader = createAbiLoader(admin);
  const manifest = await loader.load(app("Kv", id("good")), null);
  assert.equal(manifest.methods.length, KV_ABI.methods.length);
  for (let poll = 0; poll < 3; poll++) {
    await assert.rejects(
      loader.load(app("Bad", id("garbled")), null),
      /refused the app's embedded ABI .*Rebuild the app/,
    );
  }
  assert.deepEqual(calls, ["abi Kv -", "blob good", "abi Bad -", "blob garbled"]);
});
