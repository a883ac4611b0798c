import assert from "assert";
import { ABI_CONCURRENCY, type CatalogState, createCatalog, leftOutReason } from "./catalog.ts";
import { parseAbiManifest } from "./abi_parse.ts";
import type { AbiManifest } from "./abi_format.ts";
import type { Application } from "../mero/mod.ts";
import { captureStderr } from "../testing/unit.ts";

const MANIFEST = parseAbiManifest({
  schema_version: "wasm-abi/1",
  types: {},
  methods: [{ name: "get", params: [], returns: { kind: "string" }, intent: "read_only" }],
  events: [],
});

function app(id: string, pkg: string, bytecode = `blob-${id}`): Application {
  return {
    id,
    package: pkg,
    version: "1.0.0",
    blob: { bytecode, compiled: "" },
    size: 0,
    source: "",
    metadata: [],
  };
}

function catalogOver(
  list: () => Promise<Application[]>,
  load: (app: Application) => Promise<AbiManifest> = () => Promise.resolve(MANIFEST),
) {
  const changes: CatalogState[] = [];
  const catalog = createCatalog({
    listApplications: list,
    loadAbi: load,
    pollSeconds: 3600,
  });
  catalog.subscribe((state) => void changes.push(state));
  return { catalog, changes };
}

Deno.test("units are sorted by package then id, and a refresh with nothing changed notifies no one", async () => {
  const apps = [app("B", "com.z.last"), app("A", "com.a.first")];
  const { catalog, changes } = catalogOver(() => Promise.resolve([...apps]));
  try {
    const state = await catalog.refresh();
    assert.deepEqual(state.units.map((u) => u.package), ["com.a.first", "com.z.last"]);
    assert.equal(changes.length, 1);
    await catalog.refresh();
    assert.equal(changes.length, 1, "same fingerprint: no change applied");
    apps[0] = app("B", "com.z.last", "blob-B-v2"); // an upgrade: new bytecode blob
    await catalog.refresh();
    assert.equal(changes.length, 2);
  } finally {
    catalog.stop();
  }
});

Deno.test("the same list object (an unchanged answer) is not read again; a list with a unit left out is", async () => {
  const apps = [app("A", "com.a.first"), app("B", "com.b.second")];
  let loads = 0;
  let failB = true;
  const { catalog, changes } = catalogOver(() => Promise.resolve(apps), (a) => {
    loads++;
    if (a.id === "B" && failB) return Promise.reject(new Error("ABI route down"));
    return Promise.resolve(MANIFEST);
  });
  try {
    await captureStderr(() => catalog.refresh());
    assert.equal(loads, 2);
    failB = false;
    const state = await catalog.refresh();
    assert.equal(loads, 4, "a build that left B out is retried in full, same list or not");
    assert.equal(state.units.length, 2);
    await catalog.refresh();
    await catalog.refresh();
    assert.equal(loads, 4, "an unchanged list with every unit loaded reads no ABI");
    assert.equal(changes.length, 2);
  } finally {
    catalog.stop();
  }
});

Deno.test("an app whose ABI fails is left out with its reason; the rest still loads", async () => {
  const { catalog } = catalogOver(
    () => Promise.resolve([app("A", "com.a.good"), app("B", "com.b.broken")]),
    (a) => a.id === "B" ? Promise.reject(new Error("no usable ABI")) : Promise.resolve(MANIFEST),
  );
  try {
    const state = await catalog.refresh();
    assert.deepEqual(state.units.map((u) => u.applicationId), ["A"]);
    assert.match(leftOutReason(state, app("B", "com.b.broken"))!, /no usable ABI/);
    assert.match(state.notAnswering[0], /^app com\.b\.broken: no usable ABI/);
    assert.equal(leftOutReason(state, app("A", "com.a.good")), undefined);
  } finally {
    catalog.stop();
  }
});

Deno.test("a broken app or an absent node is logged when its reason appears or changes, not on every poll", async () => {
  let why = "no usable ABI";
  let up = true;
  const { catalog } = catalogOver(
    () => up ? Promise.resolve([app("B", "com.b.broken")]) : Promise.reject(new Error("refused")),
    () => Promise.reject(new Error(why)),
  );
  try {
    const count = (text: string, what: string) => text.split(what).length - 1;
    const first = await captureStderr(async () => {
      for (let i = 0; i < 5; i++) await catalog.refresh();
    });
    assert.equal(count(first, "left out of the tool list"), 1, first);
    why = "schema_version wasm-abi/2 is not supported";
    const changed = await captureStderr(async () => {
      for (let i = 0; i < 3; i++) await catalog.refresh();
    });
    assert.equal(count(changed, "left out of the tool list"), 1, changed);
    assert.match(changed, /wasm-abi\/2/);
    up = false;
    const away = await captureStderr(async () => {
      for (let i = 0; i < 3; i++) await catalog.refresh();
    });
    assert.equal(count(away, "catalog not refreshed"), 1, away);
    up = true;
    const back = await captureStderr(() => catalog.refresh());
    assert.equal(count(back, "left out of the tool list"), 0, "same reason as before the outage");
  } finally {
    catalog.stop();
  }
});

Deno.test("a node that stops answering keeps the last units and says why", async () => {
  let up = true;
  const { catalog } = catalogOver(() =>
    up ? Promise.resolve([app("A", "com.a.app")]) : Promise.reject(new Error("connection refused"))
  );
  try {
    await catalog.refresh();
    up = false;
    const state = await catalog.refresh();
    assert.equal(state.units.length, 1, "the tools stay while the node is away");
    assert.equal(state.notAnswering.length, 1);
    assert.match(state.notAnswering[0], /^node: .*connection refused/);
  } finally {
    catalog.stop();
  }
});

Deno.test("refreshes are serialised: callers during a running refresh share the next one", async () => {
  let calls = 0;
  let release!: () => void;
  const { catalog } = catalogOver(async () => {
    calls++;
    if (calls === 1) await new Promise<void>((resolve) => release = resolve);
    return [app("A", "com.a.app")];
  });
  try {
    const first = catalog.refresh();
    const second = catalog.refresh();
    const third = catalog.refresh();
    assert.equal(second, third, "one queued refresh, shared");
    release();
    await Promise.all([first, second, third]);
    assert.equal(
      calls,
      2,
      "a slow older read never lands after a newer one, and no read is wasted",
    );
  } finally {
    catalog.stop();
  }
});

Deno.test("ABIs are loaded at most ABI_CONCURRENCY at a time, however many apps there are", async () => {
  const apps = Array.from({ length: 50 }, (_, i) => app(`A${i}`, `com.x.app${i}`));
  let inFlight = 0;
  let peak = 0;
  const { catalog } = catalogOver(() => Promise.resolve(apps), async () => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 2));
    inFlight--;
    return MANIFEST;
  });
  try {
    const state = await catalog.refresh();
    assert.equal(state.units.length, 50);
    assert.equal(peak, ABI_CONCURRENCY);
  } finally {
    catalog.stop();
  }
});
