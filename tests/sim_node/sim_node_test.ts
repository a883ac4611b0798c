// The simulated node's HTTP surface with plain fetch: envelopes, flat bodies, error shapes,
// id forms, the ABI route and its wasm fallback, installs, the registry, blobs, pagination.

import assert from "assert";
import { DATA, dataText } from "./apps/data.ts";
import { isBase58Id, isHexId, sha256 } from "./ids.ts";
import { base58Encode } from "./base58.ts";
import { readCustomSection } from "./wasm.ts";
import { ABI_SECTION } from "./mod.ts";
import { call, withSim } from "./testing.ts";

const A = "/admin-api";
const decode = (bytes: number[]) => JSON.parse(new TextDecoder().decode(new Uint8Array(bytes)));

Deno.test("health is public in a data envelope; an unavailable store is a 503 with a body", async () => {
  await withSim({ apps: [] }, async (sim) => {
    assert.deepEqual((await call(sim, "GET", `${A}/health`)).body, { data: { status: "alive" } });
    sim.setHealth("store_unavailable");
    const down = await call(sim, "GET", `${A}/health`);
    assert.equal(down.status, 503);
    assert.deepEqual(down.body, { data: { status: "store_unavailable" } });
  });
});

Deno.test("identity answers the node's ids, and 404 while the node has none", async () => {
  await withSim({ apps: [], withIdentity: false }, async (sim) => {
    assert.equal((await call(sim, "GET", `${A}/identity`)).status, 404);
    sim.setIdentity(true);
    const { data } = (await call(sim, "GET", `${A}/identity`)).body as {
      data: Record<string, string>;
    };
    assert.deepEqual(Object.keys(data), [
      "accountId",
      "deviceId",
      "publicKey",
      "accountRootPublicKey",
    ]);
    assert.ok(isHexId(data.accountId) && isBase58Id(data.publicKey));
  });
});

Deno.test("application records carry blobs, metadata, signer, package, version; only an app's own record carries services", async () => {
  await withSim({}, async (sim) => {
    const { data } = (await call(sim, "GET", `${A}/applications`)).body as {
      data: { apps: Record<string, unknown>[] };
    };
    assert.equal(data.apps.length, 7);
    const tracker = data.apps.find((a) => a.package === "com.calimero.mero-issue-tracker")!;
    assert.deepEqual(Object.keys(tracker), [
      "id",
      "blob",
      "size",
      "source",
      "metadata",
      "signer_id",
      "package",
      "version",
    ]);
    assert.equal(tracker.id, sim.appId("mero-issue-tracker"));
    assert.ok(String(tracker.signer_id).startsWith("did:key:z"));
    const metadata = decode(tracker.metadata as number[]);
    assert.equal(metadata.name, "Mero Issue Tracker");
    assert.equal(metadata.guide, dataText(DATA.issueTrackerGuide));
    const servicesOf = async (id: unknown) => {
      const { body } = await call(sim, "GET", `${A}/applications/${id}`);
      return Object.keys(
        (body as { data: { application: { services?: object } } }).data.application.services ?? {},
      );
    };
    assert.deepEqual(await servicesOf(tracker.id), []);
    const drive = data.apps.find((a) => a.package === "com.calimero.mero-drive-docs")!;
    assert.equal(drive.services, undefined, "the list never carries services (core query.rs)");
    assert.deepEqual(await servicesOf(drive.id), ["registry", "docs"]);
    // A bundle as core stores it (install.rs): the archive as bytecode, a zero compiled blob, and metadata
    // from the manifest (package, version, name, description), never a guide.
    const driveBlob = drive.blob as { bytecode: string; compiled: string };
    assert.equal(driveBlob.compiled, "11111111111111111111111111111111");
    const archive = await fetch(`${sim.url}${A}/blobs/${driveBlob.bytecode}`);
    assert.deepEqual([...new Uint8Array(await archive.arrayBuffer()).subarray(0, 2)], [0x1f, 0x8b]);
    assert.deepEqual(decode(drive.metadata as number[]), {
      package: "com.calimero.mero-drive-docs",
      version: "9.0.0",
      name: "Drive Docs",
      description:
        "Shared documents in two services: a registry of titles and the documents' text.",
    });
    const kv = data.apps.find((a) => a.package === "com.calimero.kv-store")!;
    assert.equal(kv.services, undefined);
    const blob = kv.blob as { bytecode: string; compiled: string };
    assert.ok(isBase58Id(blob.bytecode) && isBase58Id(blob.compiled));
    const one = await call(sim, "GET", `${A}/applications/${kv.id}`);
    assert.deepEqual(one.body, { data: { application: kv } });
    const missing = await call(
      sim,
      "GET",
      `${A}/applications/${sim.appId("kv-store").replace(/./, "2")}`,
    );
    assert.deepEqual([missing.status, missing.body], [404, { error: "Application not found" }]);
  });
});

Deno.test("the ABI route drops doc keys by default and keeps them when asked", async () => {
  for (const keepAbiDocs of [false, true]) {
    await withSim({ apps: ["kv-store"], keepAbiDocs }, async (sim) => {
      const { body } = await call(sim, "GET", `${A}/applications/${sim.appId("kv-store")}/abi`);
      const methods = (body as { data: { methods: Record<string, unknown>[] } }).data.methods;
      const clear = methods.find((m) => m.name === "clear")!;
      const getOrInsert = methods.find((m) => m.name === "get_or_insert")!;
      assert.equal("doc" in getOrInsert, keepAbiDocs, "get_or_insert doc");
      assert.equal(clear.destructive, keepAbiDocs ? true : undefined);
      assert.equal(clear.idempotent, keepAbiDocs ? true : undefined);
    });
  }
});

Deno.test("the ABI route applies core's service_name rules and schema version check", async () => {
  await withSim({}, async (sim) => {
    const drive = sim.appId("mero-drive-docs");
    const cases: [string, number, RegExp | string][] = [
      [`${drive}/abi`, 400, /multiple services; pass service_name \(available: registry, docs\)/],
      [`${drive}/abi?service_name=docs`, 200, "wasm-abi/1.1"],
      [
        `${drive}/abi?service_name=nope`,
        400,
        /service "nope" not found \(available: registry, docs\)/,
      ],
      [`${sim.appId("kv-store")}/abi?service_name=x`, 400, /no named services; omit service_name/],
      [`${sim.appId("mero-issue-tracker")}/abi`, 200, "wasm-abi/1"],
      [`${sim.appId("broken-abi")}/abi`, 400, /^unsupported ABI schema version wasm-abi\/2$/],
      [`${sim.appId("garbled-abi")}/abi`, 400, /no usable embedded ABI \(absent or malformed\)/],
      [`${sim.appId("kv-store").replace(/./, "2")}/abi`, 404, /Application not found/],
    ];
    for (const [path, status, expected] of cases) {
      const answer = await call(sim, "GET", `${A}/applications/${path}`);
      assert.equal(answer.status, status, path);
      const body = answer.body as { data?: { schema_version: string }; error?: string };
      if (typeof expected === "string") assert.equal(body.data?.schema_version, expected, path);
      else assert.match(body.error ?? "", expected, path);
    }
  });
});

Deno.test("without the ABI route: a bare 404, and each unit's bytecode blob carries its ABI section", async () => {
  await withSim({ apps: ["kv-store", "mero-drive-docs"], abiRoute: false }, async (sim) => {
    const route = await call(sim, "GET", `${A}/applications/${sim.appId("kv-store")}/abi`);
    assert.deepEqual([route.status, route.text], [404, ""]);
    const { data } = (await call(sim, "GET", `${A}/applications/${sim.appId("mero-drive-docs")}`))
      .body as { data: { application: { services: Record<string, { bytecode: string }> } } };
    const seen = new Set<string>();
    for (const [service, { bytecode }] of Object.entries(data.application.services)) {
      const response = await fetch(`${sim.url}${A}/blobs/${bytecode}`);
      const wasm = new Uint8Array(await response.arrayBuffer());
      assert.equal(WebAssembly.validate(wasm), true, service);
      const abi = JSON.parse(new TextDecoder().decode(readCustomSection(wasm, ABI_SECTION)!));
      assert.ok(abi.methods.length > 0, service);
      seen.add(JSON.stringify(abi));
    }
    assert.equal(seen.size, 2, "each service has its own ABI");
  });
});

Deno.test("without the JSON content type a plain Json route answers 415 text, a ValidatedJson route a JSON 400", async () => {
  await withSim({ apps: [] }, async (sim) => {
    const plain = { "content-type": "text/plain" };
    const answer = await call(sim, "POST", `${A}/alias/create/context`, "{}", plain);
    assert.equal(answer.status, 415);
    assert.equal(answer.body, undefined, "plain text, not JSON");
    assert.match(answer.headers.get("content-type")!, /^text\/plain/);
    const validated = await call(sim, "POST", `${A}/contexts`, "{}", plain);
    assert.deepEqual([validated.status, validated.body], [400, {
      error: "Expected request with `Content-Type: application/json`",
    }]);
  });
});

Deno.test("malformed path ids are 400s (plain text, or JSON where core's handler parses them); unknown routes bare 404s", async () => {
  await withSim({ apps: [] }, async (sim) => {
    const cases: [string, number, "text" | "json" | "none"][] = [
      [`${A}/applications/not-base58!`, 400, "text"],
      [`${A}/contexts/0OIl`, 400, "text"],
      [`${A}/groups/xyz`, 400, "json"],
      [`${A}/blobs/0OIl`, 400, "json"],
      [`${A}/no-such-route`, 404, "none"],
      ["/nothing", 404, "none"],
    ];
    for (const [path, status, shape] of cases) {
      const answer = await call(sim, "GET", path);
      assert.equal(answer.status, status, path);
      assert.equal(answer.text !== "", shape !== "none", path);
      assert.equal(answer.body !== undefined, shape === "json", path);
    }
  });
});

Deno.test("creating a context requires groupId and initializationParams (ValidatedJson: a JSON 400)", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    const applicationId = sim.appId("kv-store");
    const groupId = sim.createNamespace(applicationId);
    for (
      const [body, field] of [[{ applicationId, initializationParams: [] }, "groupId"], [
        { applicationId, groupId },
        "initializationParams",
      ]] as const
    ) {
      const answer = await call(sim, "POST", `${A}/contexts`, body);
      assert.equal(answer.status, 400);
      assert.match(
        (answer.body as { error: string }).error,
        new RegExp(`^Invalid JSON data: .*missing field \`${field}\``),
      );
    }
    const ok = await call(sim, "POST", `${A}/contexts`, {
      applicationId,
      groupId,
      initializationParams: [],
    });
    const data = (ok.body as { data: Record<string, unknown> }).data;
    assert.deepEqual(Object.keys(data), [
      "contextId",
      "memberPublicKey",
      "groupId",
      "groupCreated",
    ]);
    assert.ok(isBase58Id(data.contextId as string));
  });
});

Deno.test("contexts come in pages of 100 with offset and limit", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    const app = sim.appId("kv-store");
    for (let i = 0; i < 150; i++) sim.createContext(app);
    const page = async (query: string) =>
      ((await call(sim, "GET", `${A}/contexts${query}`)).body as { data: { contexts: unknown[] } })
        .data.contexts.length;
    assert.equal(await page(""), 100);
    assert.equal(await page("?offset=100"), 50);
    assert.equal(await page("?offset=100&limit=100"), 50);
    assert.equal(await page("?limit=10"), 10);
    const forApp = await call(sim, "GET", `${A}/contexts/for-application/${app}`);
    assert.equal((forApp.body as { data: { contexts: unknown[] } }).data.contexts.length, 150);
  });
});

Deno.test("aliases are created, looked up (null when unknown) and listed", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    const { contextId } = sim.createContext(sim.appId("kv-store"));
    const created = await call(sim, "POST", `${A}/alias/create/context`, {
      alias: "demo",
      contextId,
    });
    assert.deepEqual(created.body, { data: null });
    const again = await call(sim, "POST", `${A}/alias/create/context`, {
      alias: "demo",
      contextId,
    });
    assert.equal(again.status, 409);
    const found = await call(sim, "POST", `${A}/alias/lookup/context/demo`, {});
    assert.deepEqual(found.body, { data: { value: contextId } });
    const missing = await call(sim, "POST", `${A}/alias/lookup/context/nope`, {});
    assert.deepEqual(missing.body, { data: { value: null } });
    assert.deepEqual((await call(sim, "GET", `${A}/alias/list/context`)).body, {
      data: { demo: contextId },
    });
    // Delete is idempotent, as in core (alias/delete_alias.rs): an absent alias is deleted too.
    for (const name of ["demo", "demo"]) {
      const deleted = await call(sim, "POST", `${A}/alias/delete/context/${name}`, {});
      assert.deepEqual([deleted.status, deleted.body], [200, { data: {} }]);
    }
    assert.equal((await call(sim, "POST", `${A}/alias/delete/context/a%20b`, {})).status, 400);
  });
});

Deno.test("blobs: raw upload, snake_case list, raw download, flat delete, 403 for app bytecode", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    const bytes = new TextEncoder().encode("hello blob");
    const up = await call(sim, "PUT", `${A}/blobs`, bytes, {
      "content-type": "application/octet-stream",
    });
    const { blob_id, size } = (up.body as { data: { blob_id: string; size: number } }).data;
    assert.ok(isBase58Id(blob_id));
    assert.equal(size, bytes.length);
    const list = (await call(sim, "GET", `${A}/blobs`)).body as { data: { blobs: unknown[] } };
    assert.ok(list.data.blobs.some((b) => JSON.stringify(b) === JSON.stringify({ blob_id, size })));
    assert.equal((await call(sim, "GET", `${A}/blobs/${blob_id}`)).text, "hello blob");
    // `hash` is the content's sha256, not the blob id (a hash of chunk hashes); a mismatch is core's 500.
    const asId = await call(sim, "PUT", `${A}/blobs?hash=${blob_id}`, bytes);
    assert.deepEqual([asId.status, asId.body], [500, {
      error: "Failed to store blob: fatal: blob hash mismatch",
    }]);
    const content = base58Encode(sha256(bytes));
    assert.notEqual(content, blob_id);
    assert.equal((await call(sim, "PUT", `${A}/blobs?hash=${content}`, bytes)).status, 200);
    const unparsable = await call(sim, "PUT", `${A}/blobs?hash=not-a-hash`, bytes);
    assert.deepEqual([unparsable.status, unparsable.body], [400, {
      error: "The provided hash is not a valid format",
    }]);
    const { data } = (await call(sim, "GET", `${A}/applications/${sim.appId("kv-store")}`))
      .body as {
        data: { application: { blob: { bytecode: string } } };
      };
    const refused = await call(sim, "DELETE", `${A}/blobs/${data.application.blob.bytecode}`);
    assert.equal(refused.status, 403);
    const deleted = await call(sim, "DELETE", `${A}/blobs/${blob_id}`);
    assert.deepEqual(deleted.body, { blob_id, deleted: true });
  });
});

Deno.test("installing maps the URL's last segment onto a sample app; failures are plain-text 500s", async () => {
  await withSim({ apps: [] }, async (sim) => {
    const url =
      "https://registry.example/artifacts/com.calimero.kv-store/1.1.0/com.calimero.kv-store-1.1.0.mpk";
    const installed = await call(sim, "POST", `${A}/install-application`, { url, metadata: [] });
    assert.deepEqual(installed.body, { data: { applicationId: sim.appId("kv-store") } });
    // A raw .wasm: package "unknown" 0.0.0 and no signer unless a path install names them; its id hashes the
    // bytecode, size, source and metadata (core install.rs), so the same file from elsewhere is another app.
    const dev = await call(sim, "POST", `${A}/install-dev-application`, {
      path: "/home/me/bignum.wasm",
      metadata: [],
    });
    const devId = (dev.body as { data: { applicationId: string } }).data.applicationId;
    const record = async (id: string) =>
      ((await call(sim, "GET", `${A}/applications/${id}`)).body as {
        data: { application: Record<string, unknown> };
      }).data.application;
    const unnamed = await record(devId);
    assert.deepEqual([unnamed.package, unnamed.version, unnamed.signer_id], [
      "unknown",
      "0.0.0",
      undefined,
    ]);
    const named = await call(sim, "POST", `${A}/install-dev-application`, {
      path: "/home/me/bignum.wasm",
      metadata: [1],
      package: "com.me.bignum",
      version: "2.0.0",
    });
    const namedId = (named.body as { data: { applicationId: string } }).data.applicationId;
    assert.notEqual(namedId, devId);
    assert.deepEqual([(await record(namedId)).package, (await record(namedId)).version], [
      "com.me.bignum",
      "2.0.0",
    ]);
    const byUrl = await call(sim, "POST", `${A}/install-application`, {
      url: "https://example.com/bignum.wasm",
      metadata: [],
      package: "com.me.ignored",
    });
    const urlId = (byUrl.body as { data: { applicationId: string } }).data.applicationId;
    assert.equal((await record(urlId)).package, "unknown", "a URL install ignores package");
    for (
      const bad of [
        "https://x/unknown-1.0.0.mpk",
        "https://x/kv-store-9.9.9.mpk",
        "https://x/a.zip",
      ]
    ) {
      const answer = await call(sim, "POST", `${A}/install-application`, {
        url: bad,
        metadata: [],
      });
      assert.equal(answer.status, 500, bad);
      assert.equal(answer.body, undefined, bad);
    }
    const removed = await call(sim, "DELETE", `${A}/applications/${devId}`);
    assert.deepEqual(removed.body, { data: { applicationId: devId } });
    const again = await call(sim, "DELETE", `${A}/applications/${devId}`);
    assert.deepEqual([again.status, again.body], [500, undefined]);
  });
});

Deno.test("an upgrade keeps the application id and changes the bytecode blob id", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    const id = sim.appId("kv-store");
    const before = sim.state.apps.get(id)!.units[0].bytecode;
    const upgraded = sim.upgrade(id, { version: "1.1.0" });
    assert.equal(upgraded.applicationId, id);
    assert.notEqual(upgraded.bytecode, before);
    const url = "https://r/com.calimero.kv-store-1.0.0.mpk";
    await call(sim, "POST", `${A}/install-application`, { url, metadata: [] });
    assert.equal(sim.state.apps.size, 1);
    assert.equal(sim.state.apps.get(id)!.units[0].bytecode, before, "content-addressed blob id");
  });
});

Deno.test("the registry serves the bundles the samples offer and their artifacts", async () => {
  await withSim({ apps: [] }, async (sim) => {
    const bundle = await call(sim, "GET", "/api/v2/bundles/com.calimero.kv-store/1.1.0");
    assert.equal(bundle.status, 200);
    const artifact = (bundle.body as { artifact: string }).artifact;
    assert.equal(
      artifact,
      `${sim.url}/artifacts/com.calimero.kv-store/1.1.0/com.calimero.kv-store-1.1.0.mpk`,
    );
    const bytes = new Uint8Array(await (await fetch(artifact)).arrayBuffer());
    assert.deepEqual(
      [bytes[0], bytes[1]],
      [0x1f, 0x8b],
      "a .mpk is a gzip'd tar, as cargo mero packs it",
    );
    for (
      const path of ["/api/v2/bundles/com.calimero.kv-store/9.9.9", "/api/v2/bundles/com.x.y/1.0.0"]
    ) {
      assert.equal((await call(sim, "GET", path)).status, 404, path);
    }
  });
});

Deno.test("a path prefix serves everything under it, and the log strips prefix and query", async () => {
  await withSim({ apps: [], pathPrefix: "/node1" }, async (sim) => {
    assert.ok(sim.url.endsWith("/node1"));
    assert.equal((await call(sim, "GET", `${A}/health?x=1`)).status, 200);
    const outside = await fetch(`${new URL(sim.url).origin}${A}/health`);
    await outside.body?.cancel();
    assert.equal(outside.status, 404);
    assert.deepEqual(sim.requests.map((r) => [r.path, r.outsidePrefix]), [
      [`${A}/health`, undefined],
      [`${A}/health`, true],
    ]);
    assert.equal(sim.counts(`${A}/health`), 1);
    assert.equal(sim.counts(`GET ${A}/health`), 1);
    assert.equal(sim.counts(`POST ${A}/health`), 0);
    sim.resetLog();
    assert.equal(sim.counts(), 0);
  });
});

Deno.test("readiness, peers, network status and usage answer in core's shapes", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    // /ready: 200 {data:{status:"ready"}}, else 503 with the lifecycle label (core admin/service.rs).
    assert.deepEqual((await call(sim, "GET", `${A}/ready`)).body, { data: { status: "ready" } });
    sim.setReadiness("starting");
    const starting = await call(sim, "GET", `${A}/ready`);
    assert.deepEqual([starting.status, starting.body], [503, { data: { status: "starting" } }]);
    // /peers and /network/status have no data envelope (handlers/peers.rs, network/status.rs).
    sim.setPeers(3);
    assert.deepEqual((await call(sim, "GET", `${A}/peers`)).body, { count: 3 });
    const network = (await call(sim, "GET", `${A}/network/status`)).body as Record<string, unknown>;
    assert.deepEqual(Object.keys(network), [
      "localPeerId",
      "listenAddrs",
      "externalAddrs",
      "relays",
      "rendezvous",
      "directUpgrades",
      "autonat",
    ]);
    const ns = sim.createNamespace(sim.appId("kv-store"));
    sim.createContext(sim.appId("kv-store"), { groupId: ns });
    const usage = (await call(sim, "GET", `${A}/usage`)).body as {
      namespaces: { namespaceId: string; contextCount: number; bytes: { total: number } }[];
    };
    const row = usage.namespaces.find((u) => u.namespaceId === ns)!;
    assert.equal(row.contextCount, 1);
    assert.ok(row.bytes.total > 0);
  });
});
