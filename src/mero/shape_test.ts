import assert from "assert";
import { createMeroClient, type MeroClient } from "./client.ts";
import { fakeFetch } from "../testing/fake_fetch.ts";
import { NodeHttpError } from "./http.ts";
import { SHAPES } from "./shape.ts";

type Run = (client: MeroClient) => Promise<unknown>;

/** Every client method whose answer callers read; `nullOk` when `{data:null}` means "nothing". */
const METHODS: Array<{ name: string; path: string; run: Run; nullOk: boolean }> = [
  { name: "health", path: "/admin-api/health", run: (c) => c.admin.health(), nullOk: false },
  { name: "identity", path: "/admin-api/identity", run: (c) => c.admin.identity(), nullOk: false },
  {
    name: "listApplications",
    path: "/admin-api/applications",
    run: (c) => c.admin.listApplications(),
    nullOk: false,
  },
  {
    name: "getApplication",
    path: "/admin-api/applications/A1",
    run: (c) => c.admin.getApplication("A1"),
    nullOk: false,
  },
  {
    name: "installApplication",
    path: "/admin-api/install-application",
    run: (c) => c.admin.installApplication({ url: "u" }),
    nullOk: false,
  },
  {
    name: "installDevApplication",
    path: "/admin-api/install-dev-application",
    run: (c) => c.admin.installDevApplication({ path: "p" }),
    nullOk: false,
  },
  {
    name: "uninstallApplication",
    path: "/admin-api/applications/A1",
    run: (c) => c.admin.uninstallApplication("A1"),
    nullOk: true,
  },
  {
    name: "listContexts",
    path: "/admin-api/contexts",
    run: (c) => c.admin.listContexts(),
    nullOk: false,
  },
  {
    name: "getContext",
    path: "/admin-api/contexts/C1",
    run: (c) => c.admin.getContext("C1"),
    nullOk: false,
  },
  {
    name: "deleteContext",
    path: "/admin-api/contexts/C1",
    run: (c) => c.admin.deleteContext("C1"),
    nullOk: true,
  },
  {
    name: "listContextsForApplication",
    path: "/admin-api/contexts/for-application/A1",
    run: (c) => c.admin.listContextsForApplication("A1"),
    nullOk: false,
  },
  {
    name: "createContext",
    path: "/admin-api/contexts",
    run: (c) =>
      c.admin.createContext({ applicationId: "A1", groupId: "G", initializationParams: [] }),
    nullOk: false,
  },
  {
    name: "joinContext",
    path: "/admin-api/contexts/C1/join",
    run: (c) => c.admin.joinContext("C1"),
    nullOk: false,
  },
  {
    name: "getContextIdentities",
    path: "/admin-api/contexts/C1/identities",
    run: (c) => c.admin.getContextIdentities("C1"),
    nullOk: false,
  },
  {
    name: "lookupContextAlias",
    path: "/admin-api/alias/lookup/context/main",
    run: (c) => c.admin.lookupContextAlias("main"),
    nullOk: false,
  },
  {
    name: "listContextAliases",
    path: "/admin-api/alias/list/context",
    run: (c) => c.admin.listContextAliases(),
    nullOk: true,
  },
  {
    name: "listNamespaces",
    path: "/admin-api/namespaces",
    run: (c) => c.admin.listNamespaces(),
    nullOk: true,
  },
  {
    name: "createNamespace",
    path: "/admin-api/namespaces",
    run: (c) => c.admin.createNamespace({ applicationId: "A1" }),
    nullOk: false,
  },
  {
    name: "deleteNamespace",
    path: "/admin-api/namespaces/N1",
    run: (c) => c.admin.deleteNamespace("N1"),
    nullOk: true,
  },
  {
    name: "inviteToNamespace",
    path: "/admin-api/namespaces/N1/invite",
    run: (c) => c.admin.inviteToNamespace("N1"),
    nullOk: false,
  },
  {
    name: "joinNamespace",
    path: "/admin-api/namespaces/N1/join",
    run: (c) => c.admin.joinNamespace("N1", { invitation: {} }),
    nullOk: false,
  },
  {
    name: "createGroupInNamespace",
    path: "/admin-api/namespaces/N1/groups",
    run: (c) => c.admin.createGroupInNamespace("N1"),
    nullOk: false,
  },
  {
    name: "getGroup",
    path: "/admin-api/groups/G1",
    run: (c) => c.admin.getGroup("G1"),
    nullOk: false,
  },
  {
    name: "createGroup",
    path: "/admin-api/groups",
    run: (c) => c.admin.createGroup({ applicationId: "A1" }),
    nullOk: false,
  },
  {
    name: "listGroupMembers",
    path: "/admin-api/groups/G1/members",
    run: (c) => c.admin.listGroupMembers("G1"),
    nullOk: true,
  },
  {
    name: "joinGroupViaInheritance",
    path: "/admin-api/groups/G1/join-via-inheritance",
    run: (c) => c.admin.joinGroupViaInheritance("G1"),
    nullOk: false,
  },
  {
    name: "uploadBlob",
    path: "/admin-api/blobs",
    run: (c) => c.admin.uploadBlob(new Uint8Array([1])),
    nullOk: false,
  },
  { name: "listBlobs", path: "/admin-api/blobs", run: (c) => c.admin.listBlobs(), nullOk: true },
  {
    name: "deleteBlob",
    path: "/admin-api/blobs/B1",
    run: (c) => c.admin.deleteBlob("B1"),
    nullOk: true,
  },
  {
    name: "rpc.execute",
    path: "/jsonrpc",
    run: (c) => c.rpc.execute({ contextId: "C1", method: "get" }),
    nullOk: false,
  },
];

function clientAnswering(text: string): MeroClient {
  return createMeroClient({
    baseUrl: "http://h:1",
    fetch: fakeFetch(() => new Response(text)).fetch,
  });
}

async function assertShapeError(run: Promise<unknown>, path: string): Promise<void> {
  await assert.rejects(run, (e) => {
    assert.ok(e instanceof NodeHttpError, `expected a NodeHttpError, got ${e}`);
    assert.equal(e.status, 200);
    assert.equal(e.path, path);
    assert.ok(e.expected !== null, "the error says what was expected");
    assert.match(e.message, /the node answered HTTP 200 with an unexpected body \(expected /);
    return true;
  });
}

for (const m of METHODS) {
  Deno.test(`${m.name}: a string, a list of numbers or a null payload is not taken for an answer`, async () => {
    await assertShapeError(m.run(clientAnswering('{"data":"xxx"}')), m.path);
    await assertShapeError(m.run(clientAnswering('{"data":[1]}')), m.path);
    if (m.nullOk) await m.run(clientAnswering('{"data":null}'));
    else await assertShapeError(m.run(clientAnswering('{"data":null}')), m.path);
  });
}

const APP = { id: "A1", blob: { bytecode: "b", compiled: "c" }, metadata: [] };

/** Payloads that are objects, yet lack a field some caller reads. */
const NEAR_MISSES: Array<{ why: string; method: string; payload: unknown }> = [
  { why: "apps is not a list", method: "listApplications", payload: { apps: { A1: APP } } },
  {
    why: "an app without an id",
    method: "listApplications",
    payload: { apps: [{ ...APP, id: 1 }] },
  },
  { why: "an app without a blob", method: "listApplications", payload: { apps: [{ id: "A1" }] } },
  {
    why: "a service without bytecode",
    method: "getApplication",
    payload: { application: { ...APP, services: { s: {} } } },
  },
  { why: "contexts missing", method: "listContexts", payload: {} },
  {
    why: "a context without applicationId",
    method: "listContexts",
    payload: { contexts: [{ id: "C" }] },
  },
  { why: "an alias value that is a number", method: "lookupContextAlias", payload: { value: 7 } },
  { why: "an alias map to numbers", method: "listContextAliases", payload: { main: 1 } },
  { why: "identities of numbers", method: "getContextIdentities", payload: { identities: [1] } },
  { why: "no applicationId", method: "installApplication", payload: { id: "A1" } },
  { why: "no memberPublicKey", method: "createContext", payload: { contextId: "C1" } },
  { why: "isDeleted not a boolean", method: "deleteContext", payload: { isDeleted: "yes" } },
  { why: "no invitation", method: "inviteToNamespace", payload: { groupName: "g" } },
  { why: "a blob without an id", method: "listBlobs", payload: { blobs: [{ size: 3 }] } },
  { why: "neither result nor error", method: "rpc.execute", payload: { jsonrpc: "2.0", id: 1 } },
  { why: "a null result", method: "rpc.execute", payload: { jsonrpc: "2.0", id: 1, result: null } },
];

for (const miss of NEAR_MISSES) {
  Deno.test(`${miss.method}: ${miss.why} is an error, not a partial answer`, async () => {
    const m = METHODS.find((x) => x.name === miss.method)!;
    const body = miss.method === "rpc.execute" ? miss.payload : { data: miss.payload };
    await assertShapeError(m.run(clientAnswering(JSON.stringify(body))), m.path);
  });
}

Deno.test("answers of the documented shapes pass, flat or in an envelope", () => {
  const good: Array<[keyof typeof SHAPES, unknown]> = [
    ["apps", { apps: [{ ...APP, services: { s: { bytecode: "x", compiled: "y" } } }] }],
    ["apps", { apps: [{ ...APP, services: null }] }],
    ["contexts", { contexts: [] }],
    ["aliasLookup", { value: null }],
    ["aliasLookup", {}],
    ["aliases", {}],
    ["blobs", { blobs: [{ blobId: "B1", size: 1 }] }],
    ["rpc", { jsonrpc: "2.0", id: 1, result: {} }],
    ["rpc", { jsonrpc: "2.0", id: 1, error: "weird" }],
  ];
  for (const [name, payload] of good) {
    assert.ok(SHAPES[name].test(payload), `${name} accepts ${JSON.stringify(payload)}`);
  }
});
