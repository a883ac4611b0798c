import assert from "assert";
import { createMeroClient, type MeroClient } from "./client.ts";
import { fakeFetch, hangUntilAborted, jsonResponse } from "./fake_fetch.ts";
import { type HttpCore, NodeHttpError, type RequestSpec } from "./http.ts";
import { createAdminApi } from "./admin.ts";
import { BLOB_ANSWER_LIMIT } from "./body.ts";
import { parseJson } from "./json.ts";

// Recorded wire bodies from calimero-network/core (crates/server/primitives/fixtures/wire/),
// copied from /work/shared/data so the test does not depend on a path outside the repository.
const WIRE: Record<string, string> = {
  "contexts/create_context.res.json":
    '{"contextId": "11111111111111111111111111111111", "groupCreated": false, "memberPublicKey": "11111111111111111111111111111111"}',
  "groups/add_members.req.json":
    '{"members": [{"identity": "0a92548330c5da2e83ac2edea453b6c2b004e05a68c56253e1326224889aa7d9", "role": "Member"}, {"identity": "Fhi3G1pzujt2ogSQyenmz5aLTx3H3YVi3poaRTr1W16i", "role": "Member"}]}',
  "groups/join.res.json":
    '{"data": {"groupId": "7c9a0b1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f900112233", "memberAccount": "aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899", "memberIdentity": "4wBqpZM9xaSheZzJSMawUKKwhdpChKbZ5eu5ky4Vigw"}}',
  "namespaces/join.res.json":
    '{"data": {"memberAccount": "aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899", "memberIdentity": "4wBqpZM9xaSheZzJSMawUKKwhdpChKbZ5eu5ky4Vigw", "namespaceId": "7c9a0b1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f900112233"}}',
};
const fixture = (name: string) => WIRE[name];

interface Case {
  name: string;
  run: (client: MeroClient) => Promise<unknown>;
  method: string;
  path: string;
  /** Expected request body text; undefined means no body. */
  body?: string;
  /** Response body text. */
  answer: string;
  result: unknown;
}

const APP = {
  id: "A1",
  blob: { bytecode: "b", compiled: "c" },
  size: 1,
  source: "s",
  metadata: [],
};
const CTX = { id: "C1", applicationId: "A1", contextStateHash: "h" };
const data = (payload: unknown) => JSON.stringify({ data: payload });

const cases: Case[] = [
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
    name: "listNamespaces",
    run: (c) => c.admin.listNamespaces(),
    method: "GET",
    path: "/admin-api/namespaces",
    answer: data([{ namespaceId: "N1" }]),
    result: [{ namespaceId: "N1" }],
  },
  {
    name: "createNamespace sends the upgrade policy",
    run: (c) => c.admin.createNamespace({ applicationId: "A1", name: "team" }),
    method: "POST",
    path: "/admin-api/namespaces",
    body: '{"applicationId":"A1","name":"team","upgradePolicy":"LazyOnAccess"}',
    answer: data({ namespaceId: "N1" }),
    result: { namespaceId: "N1" },
  },
  {
    name: "deleteNamespace sends a JSON body",
    run: (c) => c.admin.deleteNamespace("N1"),
    method: "DELETE",
    path: "/admin-api/namespaces/N1",
    body: "{}",
    answer: data({ isDeleted: true }),
    result: { isDeleted: true },
  },
  {
    name: "inviteToNamespace",
    run: (c) => c.admin.inviteToNamespace("N1"),
    method: "POST",
    path: "/admin-api/namespaces/N1/invite",
    body: "{}",
    answer: data({ invitation: { invitation: {}, inviter_signature: "s" } }),
    result: { invitation: { invitation: {}, inviter_signature: "s" } },
  },
  {
    name: "joinNamespace reads the recorded namespaceId answer",
    run: (c) => c.admin.joinNamespace("N1", { invitation: { a: 1 }, groupName: "g" }),
    method: "POST",
    path: "/admin-api/namespaces/N1/join",
    body: '{"invitation":{"a":1},"groupName":"g"}',
    answer: fixture("namespaces/join.res.json"),
    result: {
      namespaceId: "7c9a0b1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f900112233",
      memberIdentity: "4wBqpZM9xaSheZzJSMawUKKwhdpChKbZ5eu5ky4Vigw",
      memberAccount: "aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899",
    },
  },
  {
    name: "joinNamespace accepts an older node's groupId",
    run: (c) => c.admin.joinNamespace("N1", { invitation: {} }),
    method: "POST",
    path: "/admin-api/namespaces/N1/join",
    body: '{"invitation":{}}',
    answer: fixture("groups/join.res.json"),
    result: {
      namespaceId: "7c9a0b1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f900112233",
      memberIdentity: "4wBqpZM9xaSheZzJSMawUKKwhdpChKbZ5eu5ky4Vigw",
      memberAccount: "aa11bb22cc33dd44ee55ff6677889900aabbccddeeff00112233445566778899",
    },
  },
  {
    name: "leaveNamespace",
    run: (c) => c.admin.leaveNamespace("N1"),
    method: "POST",
    path: "/admin-api/namespaces/N1/leave",
    body: "{}",
    answer: "",
    result: undefined,
  },
  {
    name: "createGroupInNamespace",
    run: (c) => c.admin.createGroupInNamespace("N1", { name: "ops" }),
    method: "POST",
    path: "/admin-api/namespaces/N1/groups",
    body: '{"name":"ops","groupName":"ops"}',
    answer: data({ groupId: "G2" }),
    result: { groupId: "G2" },
  },
  {
    name: "createGroupInNamespace without a name",
    run: (c) => c.admin.createGroupInNamespace("N1"),
    method: "POST",
    path: "/admin-api/namespaces/N1/groups",
    body: "{}",
    answer: data({ groupId: "G2" }),
    result: { groupId: "G2" },
  },
  {
    name: "getGroup",
    run: (c) => c.admin.getGroup("G1"),
    method: "GET",
    path: "/admin-api/groups/G1",
    answer: data({ groupId: "G1", subgroupVisibility: "open" }),
    result: { groupId: "G1", subgroupVisibility: "open" },
  },
  {
    name: "createGroup sends the upgrade policy",
    run: (c) => c.admin.createGroup({ applicationId: "A1", parentGroupId: "G1" }),
    method: "POST",
    path: "/admin-api/groups",
    body: '{"applicationId":"A1","parentGroupId":"G1","upgradePolicy":"LazyOnAccess"}',
    answer: data({ groupId: "G3" }),
    result: { groupId: "G3" },
  },
  {
    name: "listGroupMembers reads a flat body",
    run: (c) => c.admin.listGroupMembers("G1"),
    method: "GET",
    path: "/admin-api/groups/G1/members",
    answer: JSON.stringify({ members: [{ identity: "aa", role: "Admin" }] }),
    result: { members: [{ identity: "aa", role: "Admin" }] },
  },
  {
    name: "addGroupMembers sends the recorded request shape",
    run: (c) =>
      c.admin.addGroupMembers("G1", JSON.parse(fixture("groups/add_members.req.json")).members),
    method: "POST",
    path: "/admin-api/groups/G1/members",
    body: JSON.stringify(JSON.parse(fixture("groups/add_members.req.json"))),
    answer: data(null),
    result: undefined,
  },
  {
    name: "setSubgroupVisibility",
    run: (c) => c.admin.setSubgroupVisibility("G1", "open"),
    method: "PUT",
    path: "/admin-api/groups/G1/settings/subgroup-visibility",
    body: '{"subgroupVisibility":"open"}',
    answer: data(null),
    result: undefined,
  },
  {
    name: "setGroupMetadata",
    run: (c) => c.admin.setGroupMetadata("G1", { name: "n", data: { k: "v" } }),
    method: "PUT",
    path: "/admin-api/groups/G1/metadata",
    body: '{"name":"n","data":{"k":"v"}}',
    answer: "",
    result: undefined,
  },
  {
    name: "joinGroupViaInheritance",
    run: (c) => c.admin.joinGroupViaInheritance("G1"),
    method: "POST",
    path: "/admin-api/groups/G1/join-via-inheritance",
    body: "{}",
    answer: data({ groupId: "G1", memberPublicKey: "K", wasInherited: true }),
    result: { groupId: "G1", memberPublicKey: "K", wasInherited: true },
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

for (const c of cases) {
  Deno.test(`admin.${c.name}: right method, path and body; typed result`, async () => {
    const fake = fakeFetch(() => new Response(c.answer, { status: 200 }));
    const client = createMeroClient({ baseUrl: "http://h:1/node1", fetch: fake.fetch });
    const result = await c.run(client);
    assert.deepEqual(result, c.result);
    assert.equal(fake.requests.length, 1);
    const request = fake.requests[0];
    assert.equal(request.method, c.method);
    assert.equal(request.url, `http://h:1/node1${c.path}`);
    if (c.body === undefined) {
      assert.equal(request.body, "");
    } else {
      assert.equal(request.body, c.body);
      assert.equal(request.headers.get("content-type"), "application/json");
    }
  });
}

Deno.test("joinNamespace sends a parsed invitation with its key order and exact integers", async () => {
  const text =
    '{"invitation":{"inviter_identity":[1],"group_id":[2],"expiration_timestamp":18446744073709551615,"secret_salt":[3],"invited_role":0},"inviter_signature":"sig","application_id":[4]}';
  const fake = fakeFetch(() => jsonResponse({ data: { namespaceId: "N1" } }));
  const client = createMeroClient({ baseUrl: "http://h:1", fetch: fake.fetch });
  await client.admin.joinNamespace("N1", {
    invitation: parseJson(text) as Record<string, unknown>,
  });
  assert.equal(fake.requests[0].body, `{"invitation":${text}}`);
});

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

Deno.test("install waits 300 s and namespace join 65 s unless the call says otherwise", async () => {
  const specs: RequestSpec[] = [];
  const http: HttpCore = {
    baseUrl: "http://h:1",
    request: <T>(spec: RequestSpec) => {
      specs.push(spec);
      return Promise.resolve({} as T);
    },
  };
  const admin = createAdminApi(http);
  await admin.installApplication({ url: "u" });
  await admin.installDevApplication({ path: "p" });
  await admin.joinNamespace("N1", { invitation: {} });
  await admin.installApplication({ url: "u" }, { timeoutMs: 7 });
  assert.deepEqual(specs.map((s) => s.timeoutMs), [300_000, 300_000, 65_000, 300_000]);
  assert.equal(specs[3].call?.timeoutMs, 7);
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
