import assert from "assert";
import { createMeroClient } from "./client.ts";
import {
  type AdminCase,
  dataBody,
  fakeFetch,
  jsonResponse,
  testAdminCases,
} from "../testing/fake_fetch.ts";
import type { HttpCore, RequestSpec } from "./http.ts";
import { createAdminApi } from "./admin.ts";
import { parseJson } from "../lib/json.ts";

// Bodies in the shapes of core's recorded wire bodies (crates/server/primitives/fixtures/wire/, same file
// names), with values of our own.
const WIRE: Record<string, string> = {
  "groups/add_members.req.json":
    '{"members": [{"identity": "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0", "role": "Member"}, {"identity": "6hXtVg3qPbKzW4mRrN8sYcJ2dLfE7uA9oTnB5kGiHwMx", "role": "Member"}]}',
  "groups/join.res.json":
    '{"data": {"groupId": "3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e", "memberAccount": "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a", "memberIdentity": "9SnQmk2Zb8QEfxLhTW5ZBUsXGdjJ4nXF1pDcqSgtYyVA"}}',
  "namespaces/join.res.json":
    '{"data": {"memberAccount": "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a", "memberIdentity": "9SnQmk2Zb8QEfxLhTW5ZBUsXGdjJ4nXF1pDcqSgtYyVA", "namespaceId": "3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e"}}',
};
const fixture = (name: string) => WIRE[name];

const data = dataBody;

const cases: AdminCase[] = [
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
    name: "joinNamespace reads the namespaceId answer",
    run: (c) => c.admin.joinNamespace("N1", { invitation: { a: 1 }, groupName: "g" }),
    method: "POST",
    path: "/admin-api/namespaces/N1/join",
    body: '{"invitation":{"a":1},"groupName":"g"}',
    answer: fixture("namespaces/join.res.json"),
    result: {
      namespaceId: "3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e",
      memberIdentity: "9SnQmk2Zb8QEfxLhTW5ZBUsXGdjJ4nXF1pDcqSgtYyVA",
      memberAccount: "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a",
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
      namespaceId: "3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e3e",
      memberIdentity: "9SnQmk2Zb8QEfxLhTW5ZBUsXGdjJ4nXF1pDcqSgtYyVA",
      memberAccount: "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a",
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
    name: "createGroupInNamespace sends groupName, the key core reads",
    run: (c) => c.admin.createGroupInNamespace("N1", { name: "ops" }),
    method: "POST",
    path: "/admin-api/namespaces/N1/groups",
    body: '{"groupName":"ops"}',
    answer: data({ groupId: "G2" }),
    result: { groupId: "G2" },
  },
  {
    name: "createGroupInNamespace takes the visibility at creation",
    run: (c) => c.admin.createGroupInNamespace("N1", { name: "ops", visibility: "open" }),
    method: "POST",
    path: "/admin-api/namespaces/N1/groups",
    body: '{"groupName":"ops","visibility":"open"}',
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
    name: "listGroupMembers pages with offset and limit",
    run: (c) => c.admin.listGroupMembers("G1", { offset: 100, limit: 100 }),
    method: "GET",
    path: "/admin-api/groups/G1/members?offset=100&limit=100",
    answer: JSON.stringify({ members: [] }),
    result: { members: [] },
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
    name: "addGroupMembers sends the request shape core records",
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
];

testAdminCases(cases);

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

Deno.test("namespace join waits 65 s by default", async () => {
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
  await admin.joinNamespace("N1", { invitation: {} });
  assert.deepEqual(specs.map((s) => s.timeoutMs), [65_000]);
});
