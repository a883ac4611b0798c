import assert from "assert";
import { createMeroClient } from "./client.ts";
import {
  type AdminCase,
  dataBody,
  fakeFetch,
  hangUntilAborted,
  jsonResponse,
  testAdminCases,
} from "../testing/fake_fetch.ts";
import { type HttpCore, NodeHttpError, type RequestSpec } from "./http.ts";
import { createAdminApi } from "./admin.ts";
import { BLOB_ANSWER_LIMIT } from "./body.ts";

// Bodies in the shapes of core's recorded wire bodies (crates/server/primitives/fixtures/wire/, same file
// names), with values of our own.
const WIRE: Record<string, string> = {
  "contexts/create_context.res.json":
    '{"contextId": "11111111111111111111111111111111", "groupCreated": false, "memberPublicKey": "11111111111111111111111111111111"}',
};
const fixture = (name: string) => WIRE[name];

const APP = {
  id: "A1",
  blob: { bytecode: "b", compiled: "c" },
  size: 1,
  source: "s",
  metadata: [],
};
const CTX = { id: "C1", applicationId: "A1", contextStateHash: "h" };
const data = dataBody;

const cases: AdminCase[] = [
  {
    name: "health",
    run: (c) => c.admin.health(),
    method: "GET",
    path: "/admin-api/health",
    answer: data({ status: "alive" }),
    result: { status: "alive" },
  },
  {
    name: "identity",
    run: (c) => c.admin.identity(),
    method: "GET",
    path: "/admin-api/identity",
    answer: data({ accountId: "a", deviceId: null, publicKey: "p" }),
    result: { accountId: "a", deviceId: null, publicKey: "p" },
  },
  {
    name: "listApplications",
    run: (c) => c.admin.listApplications(),
    method: "GET",
    path: "/admin-api/applications",
    answer: data({ apps: [APP] }),
    result: { apps: [APP] },
  },
  {
    name: "getApplication encodes the id",
    run: (c) => c.admin.getApplication("a/b c"),
    method: "GET",
    path: "/admin-api/applications/a%2Fb%20c",
    answer: data({ application: APP }),
    result: { application: APP },
  },
  {
    name: "getApplicationAbi with a service",
    run: (c) => c.admin.getApplicationAbi("A1", "issue-tracker"),
    method: "GET",
    path: "/admin-api/applications/A1/abi?service_name=issue-tracker",
    answer: data({ schema_version: "wasm-abi/1" }),
    result: { schema_version: "wasm-abi/1" },
  },
  {
    name: "getApplicationAbi without a service",
    run: (c) => c.admin.getApplicationAbi("A1"),
    method: "GET",
    path: "/admin-api/applications/A1/abi",
    answer: data({}),
    result: {},
  },
  {
    name: "installApplication defaults metadata to []",
    run: (c) => c.admin.installApplication({ url: "https://r/x.mpk", package: "p", version: "1" }),
    method: "POST",
    path: "/admin-api/install-application",
    body: '{"url":"https://r/x.mpk","package":"p","version":"1","metadata":[]}',
    answer: data({ applicationId: "A1" }),
    result: { applicationId: "A1" },
  },
  {
    name: "installDevApplication",
    run: (c) => c.admin.installDevApplication({ path: "/tmp/app.wasm" }),
    method: "POST",
    path: "/admin-api/install-dev-application",
    body: '{"path":"/tmp/app.wasm","metadata":[]}',
    answer: data({ applicationId: "A1" }),
    result: { applicationId: "A1" },
  },
  {
    name: "uninstallApplication",
    run: (c) => c.admin.uninstallApplication("A1"),
    method: "DELETE",
    path: "/admin-api/applications/A1",
    answer: data({ applicationId: "A1" }),
    result: { applicationId: "A1" },
  },
  {
    name: "listContexts with a page",
    run: (c) => c.admin.listContexts({ offset: 100, limit: 100 }),
    method: "GET",
    path: "/admin-api/contexts?offset=100&limit=100",
    answer: data({ contexts: [CTX] }),
    result: { contexts: [CTX] },
  },
  {
    name: "getContext",
    run: (c) => c.admin.getContext("C1"),
    method: "GET",
    path: "/admin-api/contexts/C1",
    answer: data(CTX),
    result: CTX,
  },
  {
    name: "deleteContext",
    run: (c) => c.admin.deleteContext("C1"),
    method: "DELETE",
    path: "/admin-api/contexts/C1",
    answer: data({ isDeleted: true }),
    result: { isDeleted: true },
  },
  {
    name: "listContextsForApplication",
    run: (c) => c.admin.listContextsForApplication("A1"),
    method: "GET",
    path: "/admin-api/contexts/for-application/A1",
    answer: data({ contexts: [] }),
    result: { contexts: [] },
  },
  {
    name: "createContext answers the recorded payload",
    run: (c) =>
      c.admin.createContext({
        applicationId: "A1",
        groupId: "G1",
        initializationParams: [123, 125],
      }),
    method: "POST",
    path: "/admin-api/contexts",
    body: '{"applicationId":"A1","groupId":"G1","initializationParams":[123,125]}',
    answer: data(JSON.parse(fixture("contexts/create_context.res.json"))),
    result: JSON.parse(fixture("contexts/create_context.res.json")),
  },
  {
    name: "joinContext",
    run: (c) => c.admin.joinContext("C1"),
    method: "POST",
    path: "/admin-api/contexts/C1/join",
    body: "{}",
    answer: data({ contextId: "C1", memberPublicKey: "K" }),
    result: { contextId: "C1", memberPublicKey: "K" },
  },
  {
    name: "getContextIdentities",
    run: (c) => c.admin.getContextIdentities("C1"),
    method: "GET",
    path: "/admin-api/contexts/C1/identities",
    answer: data({ identities: ["K"] }),
    result: { identities: ["K"] },
  },
  {
    name: "getContextIdentities owned",
    run: (c) => c.admin.getContextIdentities("C1", { owned: true }),
    method: "GET",
    path: "/admin-api/contexts/C1/identities-owned",
    answer: data({ identities: [] }),
    result: { identities: [] },
  },
  {
    name: "createContextAlias",
    run: (c) => c.admin.createContextAlias("main", "C1"),
    method: "POST",
    path: "/admin-api/alias/create/context",
    body: '{"alias":"main","contextId":"C1"}',
    answer: data(null),
    result: undefined,
  },
  {
    name: "lookupContextAlias hit",
    run: (c) => c.admin.lookupContextAlias("main"),
    method: "POST",
    path: "/admin-api/alias/lookup/context/main",
    body: "{}",
    answer: data({ value: "C1" }),
    result: "C1",
  },
  {
    name: "lookupContextAlias miss",
    run: (c) => c.admin.lookupContextAlias("nope"),
    method: "POST",
    path: "/admin-api/alias/lookup/context/nope",
    body: "{}",
    answer: data({ value: null }),
    result: null,
  },
  {
    name: "listContextAliases",
    run: (c) => c.admin.listContextAliases(),
    method: "GET",
    path: "/admin-api/alias/list/context",
    answer: data({ main: "C1" }),
    result: { main: "C1" },
  },
  {
    name: "listBlobs maps snake_case",
    run: (c) => c.admin.listBlobs(),
    method: "GET",
    path: "/admin-api/blobs",
    answer: data({ blobs: [{ blob_id: "B1", size: 3 }] }),
    result: { blobs: [{ blobId: "B1", size: 3 }] },
  },
  {
    name: "deleteBlob reads a flat snake_case body",
    run: (c) => c.admin.deleteBlob("B1"),
    method: "DELETE",
    path: "/admin-api/blobs/B1",
    answer: JSON.stringify({ blob_id: "B1", deleted: true }),
    result: { blobId: "B1", deleted: true },
  },
];

testAdminCases(cases);

Deno.test("uploadBlob sends raw bytes with hash and context_id and maps the answer", async () => {
  const fake = fakeFetch(() => jsonResponse({ data: { blob_id: "B1", size: 3 } }));
  const client = createMeroClient({ baseUrl: "http://h:1", fetch: fake.fetch });
  const info = await client.admin.uploadBlob(new Uint8Array([7, 8, 9]), {
    hash: "H",
    contextId: "C1",
  });
  assert.deepEqual(info, { blobId: "B1", size: 3 });
  const request = fake.requests[0];
  assert.equal(request.method, "PUT");
  assert.equal(request.url, "http://h:1/admin-api/blobs?hash=H&context_id=C1");
  assert.equal(request.headers.get("content-type"), "application/octet-stream");
  assert.deepEqual([...request.bytes], [7, 8, 9]);
});

Deno.test("getBlob returns the raw bytes", async () => {
  const fake = fakeFetch(() => new Response(new Uint8Array([0, 255, 10])));
  const client = createMeroClient({ baseUrl: "http://h:1", fetch: fake.fetch });
  assert.deepEqual([...await client.admin.getBlob("B1")], [0, 255, 10]);
  assert.equal(fake.requests[0].url, "http://h:1/admin-api/blobs/B1");
});

Deno.test("getBlob may read up to the blob cap; JSON calls keep the default cap", async () => {
  const specs: RequestSpec[] = [];
  const http: HttpCore = {
    baseUrl: "http://h:1",
    stream: () => Promise.reject(new Error("no streams here")),
    request: <T>(spec: RequestSpec) => {
      specs.push(spec);
      return Promise.resolve({ apps: [] } as T);
    },
  };
  const admin = createAdminApi(http);
  await admin.getBlob("B1");
  await admin.listApplications();
  assert.deepEqual(specs.map((s) => s.maxBytes), [BLOB_ANSWER_LIMIT, undefined]);
});

Deno.test("install waits 300 s unless the call says otherwise", async () => {
  const specs: RequestSpec[] = [];
  const http: HttpCore = {
    baseUrl: "http://h:1",
    stream: () => Promise.reject(new Error("no streams here")),
    request: <T>(spec: RequestSpec) => {
      specs.push(spec);
      return Promise.resolve({} as T);
    },
  };
  const admin = createAdminApi(http);
  await admin.installApplication({ url: "u" });
  await admin.installDevApplication({ path: "p" });
  await admin.installApplication({ url: "u" }, { timeoutMs: 7 });
  assert.deepEqual(specs.map((s) => s.timeoutMs), [300_000, 300_000, 300_000]);
  assert.equal(specs[2].call?.timeoutMs, 7);
});

Deno.test("a call's own timeout beats the endpoint default", async () => {
  const fake = fakeFetch((_req, signal) => hangUntilAborted(signal));
  const client = createMeroClient({ baseUrl: "http://h:1", timeoutMs: 5, fetch: fake.fetch });
  await assert.rejects(
    client.admin.installApplication({ url: "https://r/x.mpk" }, { timeoutMs: 10 }),
    (e) => e instanceof NodeHttpError && e.status === 0 && /10 ms/.test(e.message),
  );
  await assert.rejects(client.admin.health(), /timed out after 5 ms/);
});
