import assert from "assert";
import { type TestTool, testTool, toolContext } from "../../testing/tool_deps.ts";
import type { Config } from "../../config/config.ts";
import type { Session } from "../../node/session.ts";
import { type GroupInfo, NodeHttpError } from "../../mero/mod.ts";
import type { ToolDeps } from "../deps.ts";
import type { ToolCall } from "../tool.ts";
import { governanceTools } from "./mod.ts";
import { currentMetadata, mergeMetadata } from "./settings.ts";
import { joinRequest } from "./namespaces.ts";

const ctx: ToolCall = {
  signal: new AbortController().signal,
  progress: () => {},
  confirm: () => Promise.resolve(null),
};

const INVITATION_TEXT =
  '{"invitation":{"inviter_identity":"Key","group_id":[1,2],"expiration_timestamp":41796092726508123457,' +
  '"secret_salt":[3],"invited_role":1},"inviter_signature":"sig","application_id":"App"}';

Deno.test("joinRequest parses JSON text losslessly, keeping key order and big integers", () => {
  const { invitation } = joinRequest(INVITATION_TEXT, undefined);
  assert.deepEqual(Object.keys(invitation), ["invitation", "inviter_signature", "application_id"]);
  const inner = invitation.invitation as Record<string, unknown>;
  assert.equal(inner.expiration_timestamp, 41796092726508123457n);
  assert.deepEqual(Object.keys(inner), [
    "inviter_identity",
    "group_id",
    "expiration_timestamp",
    "secret_salt",
    "invited_role",
  ]);
});

Deno.test("joinRequest passes an invitation object through untouched", () => {
  const given = { invitation: { inviter_identity: "K" }, inviter_signature: "s" };
  const request = joinRequest(given, "team");
  assert.equal(request.invitation, given);
  assert.equal(request.groupName, "team");
  assert.ok(!("groupName" in joinRequest(given, undefined)));
});

Deno.test("joinRequest unwraps the whole invite result once, taking its groupName", () => {
  const wrapped = `{"invitation":${INVITATION_TEXT},"groupName":"Team"}`;
  const request = joinRequest(wrapped, undefined);
  assert.equal(request.invitation.inviter_signature, "sig");
  assert.equal(request.groupName, "Team");
  assert.equal(joinRequest(wrapped, "Mine").groupName, "Mine");
  const object = { invitation: { invitation: { a: 1 }, inviter_signature: "s" } };
  assert.equal(joinRequest(object, undefined).invitation, object.invitation);
});

Deno.test("joinRequest refuses text that is not a JSON object", () => {
  assert.throws(() => joinRequest("{nope", undefined), /not JSON/);
  assert.throws(() => joinRequest("[1,2]", undefined), /must be the object/);
});

Deno.test("currentMetadata reads the metadata record, else the group's name", () => {
  const base = { groupId: "g" } as GroupInfo;
  assert.deepEqual(
    currentMetadata({ ...base, metadata: { name: "N", data: { a: "1" } } }),
    { name: "N", data: { a: "1" } },
  );
  assert.deepEqual(currentMetadata({ ...base, metadata: { name: null, data: null } } as never), {
    name: null,
    data: {},
  });
  assert.deepEqual(currentMetadata({ ...base, name: "Old" }), { name: "Old", data: {} });
});

Deno.test("mergeMetadata changes only what is given and keeps other data keys", () => {
  const current = { name: "Room", data: { topic: "chat", lang: "en" } };
  const cases: [Parameters<typeof mergeMetadata>[1], ReturnType<typeof mergeMetadata>][] = [
    [{ name: "Hall" }, { name: "Hall", data: { topic: "chat", lang: "en" } }],
    [{ data: { lang: "fr" } }, { name: "Room", data: { topic: "chat", lang: "fr" } }],
    [{ data: { size: "9" } }, { name: "Room", data: { topic: "chat", lang: "en", size: "9" } }],
  ];
  for (const [change, expected] of cases) {
    assert.deepEqual(mergeMetadata(current, change), expected);
  }
  assert.deepEqual(mergeMetadata({ name: null, data: {} }, { data: { a: "b" } }), {
    data: { a: "b" },
  });
});

type Admin = Record<string, (...args: unknown[]) => unknown>;

function fakeDeps(admin: Admin, metadataRoute?: () => unknown) {
  const events: { method: string; args: unknown[] }[] = [];
  const deps = toolContext({
    config: {} as Config,
    node: {
      admin: new Proxy(admin, {
        get: (target, method: string) => (...args: unknown[]) => {
          events.push({ method, args });
          return Promise.resolve().then(() => target[method](...args));
        },
      }),
      connection: () =>
        Promise.resolve({
          client: {
            http: {
              request: (spec: { path: string }) => {
                events.push({ method: "http", args: [spec.path] });
                return Promise.resolve().then(() => metadataRoute?.());
              },
            },
          },
        }),
    } as unknown as Session,
    apps: {
      list: () => Promise.resolve([]),
      resolve: () => Promise.resolve({ id: "App" } as never),
      abi: () => Promise.reject(new Error("unused")),
      refresh: () => Promise.resolve(),
    },
    notAnswering: () => [],
  });
  return { deps, events };
}

function tool(deps: ToolDeps, name: string): TestTool {
  return testTool(governanceTools(deps).find((t) => t.name === name)!);
}

const text = (result: { content: unknown }) => (result.content as { text: string }[])[0].text;

Deno.test("create_group with a parent creates a subgroup of the parent's app, then sets visibility", async () => {
  const { deps, events } = fakeDeps({
    getGroup: () => ({ targetApplicationId: "ParentApp" }),
    createGroup: () => ({ groupId: "sub" }),
    setSubgroupVisibility: () => undefined,
  });
  const result = await tool(deps, "create_group").call(
    { namespace: "ns", parent: "p", name: "Sub", visibility: "open" },
    ctx,
  );
  assert.deepEqual(JSON.parse(text(result)), { groupId: "sub" });
  assert.deepEqual(events.map((e) => e.method), [
    "getGroup",
    "createGroup",
    "setSubgroupVisibility",
  ]);
  assert.deepEqual(events[1].args[0], {
    applicationId: "ParentApp",
    parentGroupId: "p",
    name: "Sub",
  });
  assert.deepEqual(events[2].args.slice(0, 2), ["sub", "open"]);
});

Deno.test("create_group in a namespace is one write with the visibility (core takes it at creation)", async () => {
  const { deps, events } = fakeDeps({ createGroupInNamespace: () => ({ groupId: "g1" }) });
  const plain = await tool(deps, "create_group").call({ namespace: "ns" }, ctx);
  assert.deepEqual(JSON.parse(text(plain)), { groupId: "g1" });
  const open = await tool(deps, "create_group").call(
    { namespace: "ns", name: "Room", visibility: "open" },
    ctx,
  );
  assert.deepEqual(JSON.parse(text(open)), { groupId: "g1" });
  assert.deepEqual(events.map((e) => [e.method, e.args[0], e.args[1]]), [
    ["createGroupInNamespace", "ns", {}],
    ["createGroupInNamespace", "ns", { name: "Room", visibility: "open" }],
  ]);
});

Deno.test("a subgroup whose visibility step fails says the group exists and how to finish", async () => {
  const { deps } = fakeDeps({
    getGroup: () => ({ targetApplicationId: "ParentApp" }),
    createGroup: () => ({ groupId: "g2" }),
    setSubgroupVisibility: () => {
      throw new Error("node busy");
    },
  });
  const failed = await tool(deps, "create_group").call(
    { namespace: "ns", parent: "p", visibility: "open" },
    ctx,
  );
  assert.equal(failed.isError, true);
  assert.match(
    text(failed),
    /Group g2 was created, but setting its visibility to "open" failed \(node busy\)\. Retry with set_group_visibility/,
  );
});

Deno.test("set_group_metadata reads the metadata route and writes back the merged record", async () => {
  const { deps, events } = fakeDeps(
    { setGroupMetadata: () => undefined },
    () => ({ name: "Room", data: { topic: "chat" } }),
  );
  const result = await tool(deps, "set_group_metadata").call(
    { group: "g", data: { lang: "en" } },
    ctx,
  );
  assert.ok(!result.isError, text(result));
  assert.deepEqual(events[0].args, ["/admin-api/groups/g/metadata"]);
  assert.deepEqual(events[1].args.slice(0, 2), ["g", {
    name: "Room",
    data: { topic: "chat", lang: "en" },
  }]);
});

Deno.test("set_group_metadata falls back to the group record on a node without the metadata route", async () => {
  const bare404 = new NodeHttpError({
    status: 404,
    method: "GET",
    url: "http://localhost:2528/admin-api/groups/g/metadata",
    path: "/admin-api/groups/g/metadata",
  });
  const { deps, events } = fakeDeps({
    getGroup: () => ({ groupId: "g", name: "Old" }),
    setGroupMetadata: () => undefined,
  }, () => {
    throw bare404;
  });
  await tool(deps, "set_group_metadata").call({ group: "g", data: { a: "1" } }, ctx);
  assert.deepEqual(events.map((e) => e.method), ["http", "getGroup", "setGroupMetadata"]);
  assert.deepEqual(events[2].args[1], { name: "Old", data: { a: "1" } });
});

Deno.test("add_group_members names who was added with which role; roles are checked first", async () => {
  const { deps, events } = fakeDeps({ addGroupMembers: () => undefined });
  const added = await tool(deps, "add_group_members").call({
    group: "g",
    members: [{ identity: "KeyA", role: "Admin" }, { identity: "KeyB", role: "ReadOnly" }],
  }, ctx);
  assert.equal(text(added), "Added to group g: KeyA as Admin, KeyB as ReadOnly.");
  const bad = await tool(deps, "add_group_members").call({
    group: "g",
    members: [{ identity: "KeyA", role: "Owner" }],
  }, ctx);
  assert.equal(bad.isError, true);
  assert.match(text(bad), /members\.0\.role/);
  assert.equal(events.length, 1);
});

Deno.test("join_namespace sends the invitation with the 65 s timeout", async () => {
  const { deps, events } = fakeDeps({
    joinNamespace: () => ({ namespaceId: "ns", memberIdentity: "K", memberAccount: "A" }),
  });
  const result = await tool(deps, "join_namespace").call(
    { namespace: "ns", invitation: INVITATION_TEXT },
    ctx,
  );
  assert.deepEqual(JSON.parse(text(result)), {
    namespaceId: "ns",
    memberIdentity: "K",
    memberAccount: "A",
  });
  const [namespace, request, options] = events[0].args as [
    string,
    { invitation: Record<string, unknown> },
    { timeoutMs: number },
  ];
  assert.equal(namespace, "ns");
  assert.equal(request.invitation.inviter_signature, "sig");
  assert.equal(options.timeoutMs, 65_000);
});

Deno.test("leave_namespace and set_group_visibility answer sentences, not null", async () => {
  const { deps } = fakeDeps({
    leaveNamespace: () => undefined,
    setSubgroupVisibility: () => undefined,
  });
  assert.equal(
    text(await tool(deps, "leave_namespace").call({ namespace: "ns" }, ctx)),
    "This node left namespace ns.",
  );
  assert.equal(
    text(await tool(deps, "set_group_visibility").call({ group: "g", visibility: "open" }, ctx)),
    "Group g is now open.",
  );
});
