// Issue 31, groups: a namespace and its groups read in one tool, and a subgroup deleted, left or a context detached
// only once the person was asked with what goes with it, against the simulated node as core behaves
// (crates/context/src/handlers/{delete_group,leave_group,detach_context_from_group}.rs).

import assert from "assert";
import { askingClient, callOk, connect, firstText, isolatedEnv } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";
import { serverOn } from "./fixture.ts";

Deno.test("describe_group, detach_context, delete_group and leave_group: asked first, a namespace refused", async () => {
  await using t = await serverOn({
    era: "2026-07-28",
    sim: { apps: ["kv-store"] },
    reply: () => reply,
  });
  const { sim, client, asked } = t;
  const kv = sim.appId("kv-store");
  let reply: { action: "accept" | "decline"; content?: Record<string, boolean> } = {
    action: "accept",
    content: { confirm: true },
  };
  const json = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    assert.ok(!result.isError, `${name}: ${firstText(result)}`);
    return JSON.parse(firstText(result));
  };
  const ns = sim.createNamespace(kv, "team");
  const { groupId: sub } = await json("create_group", { namespace: ns, name: "design" });
  const { groupId: other } = await json("create_group", { namespace: ns, name: "ops" });
  const kept = sim.createContext(kv, { groupId: sub, alias: "board" }).contextId;
  const gone = sim.createContext(kv, { groupId: sub }).contextId;

  const root = await json("describe_group", { group: ns });
  assert.equal(root.namespace, true);
  assert.deepEqual(
    root.subgroups.map((g: { name?: string }) => g.name).sort(),
    ["design", "ops"],
  );
  const design = await json("describe_group", { group: sub });
  assert.equal(design.namespace, false);
  assert.deepEqual(
    design.contexts.map((c: { contextId: string }) => c.contextId).sort(),
    [kept, gone].sort(),
  );

  // Detach by alias: the question names the id; declined, nothing changes.
  reply = { action: "decline" };
  const declined = await client.callTool({
    name: "detach_context",
    arguments: { group: sub, context: "board" },
  });
  assert.equal(declined.isError, true);
  assert.match(
    asked.at(-1)!,
    new RegExp(`Detach context ${kept} \\(alias "board"\\) from group`),
  );
  assert.equal(sim.counts(`POST /admin-api/groups/${sub}/contexts/${kept}/remove`), 0);
  reply = { action: "accept", content: { confirm: true } };
  await client.callTool({ name: "detach_context", arguments: { group: sub, context: "board" } });
  assert.deepEqual(
    (await json("describe_group", { group: sub })).contexts.map((c: { contextId: string }) =>
      c.contextId
    ),
    [gone],
  );

  // A namespace is refused by both before anything is asked or sent.
  const before = asked.length;
  for (
    const [name, instead] of [["delete_group", "delete_namespace"], [
      "leave_group",
      "leave_namespace",
    ]]
  ) {
    const refused = await client.callTool({ name, arguments: { group: ns } });
    assert.equal(refused.isError, true);
    assert.match(
      firstText(refused),
      new RegExp(`is a namespace, not a subgroup: use ${instead}`),
    );
  }
  assert.equal(asked.length, before);
  assert.equal(sim.counts(`DELETE /admin-api/groups/${ns}`), 0);

  // Delete says what goes with it (core cascades), then deletes the group and its contexts.
  const deleted = await json("delete_group", { group: sub });
  assert.match(asked.at(-1)!, /and everything under it \(0 subgroups and 1 context of its own/);
  assert.equal(deleted.isDeleted, true);
  assert.equal(sim.state.contexts.has(gone), false, "its context went with it");

  const left = await json("leave_group", { group: other });
  assert.match(asked.at(-1)!, new RegExp(`Leave group ${other} with this node\\?`));
  assert.equal(left.groupId, other);
});

Deno.test("sync_group reads a group's state; resync_context refuses to discard writes unless forced, and then asks", async () => {
  await using t = await serverOn({
    era: "2026-07-28",
    sim: { apps: ["kv-store"] },
    reply: () => ({ action: "accept", content: { confirm: true } }),
  });
  const { sim, client, asked } = t;
  const kv = sim.appId("kv-store");
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args });
  const ns = sim.createNamespace(kv);
  const { contextId } = sim.createContext(kv, { groupId: ns, alias: "notes" });
  const synced = JSON.parse(firstText(await call("sync_group", { group: ns })));
  assert.deepEqual([synced.groupId, synced.contextCount], [ns, 1]);

  // A written context holds local history: without force the node refuses, and the tool says to force.
  const handle = JSON.parse(firstText(
    await call("select_app", { app: "kv-store", context: contextId }),
  )).app_handle;
  await call("kv_store_set", { app_handle: handle, key: "k", value: "v" });
  const refused = await call("resync_context", { context: "notes" });
  assert.equal(refused.isError, true);
  assert.match(firstText(refused), /refused while this node holds writes .* pass force/);
  assert.equal(asked.length, 0, "without force nothing is discarded, so nothing is asked");

  const forced = await call("resync_context", { context: "notes", force: true });
  assert.ok(!forced.isError, firstText(forced));
  assert.match(
    asked[0],
    new RegExp(`Resync context ${contextId} \\(alias "notes"\\).*discarding`),
  );
  assert.equal(JSON.parse(firstText(forced)).resyncStarted, true);
});

Deno.test("upgrade_group moves a group's contexts to another version, asked first; its status and each member's migration show; update_context_application moves one", async () => {
  await using t = await serverOn({
    era: "2026-07-28",
    sim: { apps: ["kv-store"] },
    reply: () => ({ action: "accept", content: { confirm: true } }),
  });
  const { sim, client, asked } = t;
  const kv = sim.appId("kv-store");
  const signer = sim.state.apps.get(kv)!.signerId;
  const abi = {
    schema_version: "wasm-abi/1",
    types: {},
    methods: [{ name: "init", params: [], returns: { kind: "unit" } }],
    events: [],
  };
  const next = sim.install({ package: "com.calimero.kv-next", version: "2.0.0", signer, abi })
    .applicationId;
  const json = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    assert.ok(!result.isError, `${name}: ${firstText(result)}`);
    return JSON.parse(firstText(result));
  };
  const ns = sim.createNamespace(kv);
  const a = sim.createContext(kv, { groupId: ns }).contextId;
  const b = sim.createContext(kv, { groupId: ns }).contextId;
  assert.equal((await json("group_upgrade_status", { group: ns })).upgrade, null);

  const upgraded = await json("upgrade_group", { group: ns, application: next });
  assert.match(
    asked.at(-1)!,
    new RegExp(`Upgrade every context of group ${ns} to com\\.calimero\\.kv-next 2\\.0\\.0`),
  );
  assert.equal(upgraded.status, "completed");
  for (const id of [a, b]) assert.equal(sim.state.contexts.get(id)!.core.applicationId, next);
  const status = await json("group_upgrade_status", { group: ns });
  assert.equal(status.upgrade.toVersion, "2.0.0");
  assert.equal(status.migration.rollup.allMigrated, true);

  await json("update_context_application", { context: a, application: "kv-store" });
  assert.match(
    asked.at(-1)!,
    new RegExp(`Run context ${a} on com\\.calimero\\.kv-store 1\\.0\\.0`),
  );
  assert.equal(sim.state.contexts.get(a)!.core.applicationId, kv);

  // Another signer's app is refused by the node, and the tool says why.
  const other = sim.install({ package: "com.other.app", version: "1.0.0", abi }).applicationId;
  const refused = await client.callTool({
    name: "update_context_application",
    arguments: { context: b, application: other },
  });
  assert.equal(refused.isError, true);
  assert.match(firstText(refused), /signed by the same signer/);
  assert.equal(sim.state.contexts.get(b)!.core.applicationId, next);
});

Deno.test("set_group_metadata names a context or a member; default capabilities reach new members; auto-follow off keeps a member from new contexts", async () => {
  const a = await startSimNode({ apps: ["kv-store"] });
  const b = await startSimNode({ apps: ["kv-store"] });
  const kv = a.appId("kv-store");
  const { client } = await askingClient(
    "2026-07-28",
    await isolatedEnv({ CALIMERO_NODE_URL: a.url }),
    () => ({ action: "accept", content: { confirm: true } }),
  );
  const connB = await connect({
    era: "2026-07-28",
    env: await isolatedEnv({ CALIMERO_NODE_URL: b.url }),
  });
  const ok = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    assert.ok(!result.isError, `${name}: ${firstText(result)}`);
    return firstText(result);
  };
  try {
    const ns = a.createNamespace(kv);
    const { contextId } = a.createContext(kv, { groupId: ns, alias: "board" });
    await ok("set_group_metadata", { group: ns, context: "board", name: "Roadmap" });
    const described = JSON.parse(await ok("describe_group", { group: ns }));
    assert.deepEqual(described.contexts, [{ contextId, name: "Roadmap" }], "the name people see");

    // Defaults set before b joins: b starts with them.
    await ok("set_default_capabilities", { group: ns, capabilities: ["create_context"] });
    const invitation = await ok("invite_to_namespace", { namespace: ns });
    await callOk(connB, "join_namespace", { namespace: ns, invitation });
    const member = b.identity.accountId;
    const caps = JSON.parse(await ok("set_member_capabilities", { group: ns, member }));
    assert.deepEqual(
      caps.capabilities,
      ["create_context"],
      "a new member starts with the defaults",
    );
    await ok("set_group_metadata", { group: ns, member, name: "Bea" });

    const before = a.createContext(kv, { groupId: ns }).contextId;
    assert.equal(b.state.contexts.has(before), true, "b follows new contexts by itself at first");
    assert.match(
      await ok("set_auto_follow", { group: ns, member, contexts: false, subgroups: true }),
      /does not join group .*'s new contexts and joins its new subgroups/,
    );
    const later = a.createContext(kv, { groupId: ns }).contextId;
    assert.equal(b.state.contexts.has(later), false, "switched off, b does not follow it");
    const refused = await client.callTool({
      name: "set_auto_follow",
      arguments: { group: ns, member: "cd".repeat(32), contexts: true, subgroups: true },
    });
    assert.match(firstText(refused), /must be a member of the group/);
  } finally {
    await client.close();
    await connB.close();
    await a.close();
    await b.close();
  }
});

for (const typed of [false, true]) {
  Deno.test(`a refusal is explained at core 051f0848 (bare 500) and shown as the newer core types it (typed: ${typed})`, async () => {
    await using t = await serverOn({
      era: "2026-07-28",
      sim: { apps: ["kv-store"], core: typed ? "newer" : "051f0848" },
      reply: () => ({ action: "accept", content: { confirm: true } }),
    });
    const { sim, client } = t;
    const kv = sim.appId("kv-store");
    const ns = sim.createNamespace(kv);
    const { contextId } = sim.createContext(kv, { groupId: ns });
    const abi = { schema_version: "wasm-abi/1", types: {}, methods: [], events: [] };
    const other = sim.install({ package: "com.other.app", version: "1.0.0", abi }).applicationId;
    const cases: [string, Record<string, unknown>, RegExp, RegExp][] = [
      [
        "set_auto_follow",
        { group: ns, member: "cd".repeat(32), contexts: true, subgroups: true },
        /without saying why \(HTTP 500\): in core the account must be a member/,
        /target is not a member of group/,
      ],
      [
        "update_context_application",
        { context: contextId, application: other },
        /without saying why \(HTTP 500\)\. In core the app must be installed here and signed by the same signer/,
        /AppKey continuity violation: signerId mismatch/,
      ],
    ];
    for (const [name, args, old, newer] of cases) {
      const refused = await client.callTool({ name, arguments: args });
      assert.equal(refused.isError, true, name);
      assert.match(firstText(refused), typed ? newer : old, `${name}: ${firstText(refused)}`);
    }
  });
}

Deno.test("granting power asks first, naming who gets what: an admin added or promoted, capabilities, an open subgroup, an invitation, every future member's capabilities, an upgrade retried", async () => {
  await using t = await serverOn({
    era: "2025-11-25",
    sim: { apps: ["kv-store"] },
    reply: () => reply,
  });
  const { sim, client, asked } = t;
  const kv = sim.appId("kv-store");
  const signer = sim.state.apps.get(kv)!.signerId;
  const next = sim.install({
    package: "com.calimero.kv-next",
    version: "2.0.0",
    signer,
    abi: { schema_version: "wasm-abi/1", types: {}, methods: [], events: [] },
  }).applicationId;
  let reply: { action: "accept" | "decline"; content?: Record<string, boolean> } = {
    action: "accept",
    content: { confirm: true },
  };
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args });
  const stranger = "ab".repeat(32);
  const ns = sim.createNamespace(kv, "team");
  const sub = JSON.parse(firstText(await call("create_group", { namespace: ns, name: "inner" })))
    .groupId;
  // What grants no power runs unasked: a plain member, a restricted group, no default capabilities.
  const plain = await call("add_group_members", {
    group: sub,
    members: [{ identity: stranger, role: "Member" }],
  });
  assert.ok(!plain.isError, firstText(plain));
  await call("upgrade_group", { group: ns, application: next });
  const before = asked.length;
  const writes = () => sim.requests.filter((r) => r.method !== "GET").length;
  const written = writes();
  reply = { action: "decline" };
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      "add_group_members",
      { group: sub, members: [{ identity: "cd".repeat(32), role: "Admin" }] },
      new RegExp(`Make ${"cd".repeat(32)} an admin of group ${sub}\\? An admin may`),
    ],
    [
      "set_member_role",
      { group: sub, member: stranger, role: "Admin" },
      new RegExp(`Set ${stranger} from Member to Admin in group ${sub}\\? An admin may`),
    ],
    [
      "set_member_capabilities",
      { group: sub, member: stranger, grant: ["manage_members"] },
      new RegExp(`Grant ${stranger} manage_members in group ${sub}\\? .*add and remove members`),
    ],
    [
      "set_group_visibility",
      { group: sub, visibility: "open" },
      new RegExp(`Open group ${sub} to every member of its namespace`),
    ],
    [
      "invite_to_namespace",
      { namespace: ns },
      new RegExp(
        `Create an invitation to namespace ${ns}, valid for a year \\(the node.s default\\)\\? Whoever holds it`,
      ),
    ],
    [
      "set_default_capabilities",
      { group: sub, capabilities: ["manage_members", "delete_subgroup"] },
      new RegExp(`Give every future member of group ${sub} manage_members, delete_subgroup`),
    ],
    [
      "upgrade_group",
      { group: ns, retry: true },
      new RegExp(`Retry group ${ns}'s upgrade from 1\\.0\\.0 to 2\\.0\\.0`),
    ],
  ];
  for (const [name, args, question] of cases) {
    const result = await call(name, args);
    assert.equal(result.isError, true, `${name}: ${firstText(result)}`);
    assert.match(asked.at(-1) ?? "", question, name);
  }
  assert.equal(asked.length, before + cases.length, "each asked once");
  assert.equal(writes(), written, "declined: nothing was sent to the node");
});

Deno.test("describe_group shows a namespace's subgroups a page at a time", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    const ns = sim.createNamespace(sim.appId("kv-store"), "many");
    for (let i = 0; i < 55; i++) {
      await callOk(conn, "create_group", { namespace: ns, name: `g${i}` });
    }
    const first = await callOk(conn, "describe_group", { group: ns });
    assert.equal(first.subgroups.length, 50);
    assert.equal(first.subgroups_next, 50);
    assert.match(first.subgroups_note, /55 subgroups in all/);
    const rest = await callOk(conn, "describe_group", { group: ns, subgroups_offset: 50 });
    assert.equal(rest.subgroups.length, 5);
    assert.equal(rest.subgroups_next, undefined);
  } finally {
    await conn.close();
    await sim.close();
  }
});
