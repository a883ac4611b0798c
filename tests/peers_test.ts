// Real nodes, several of them (issue 21): what core does when peers, groups and sync are involved, as the simulated
// node now follows it (each behaviour cites its core file there), and what the product tells the user about it.

import assert from "assert";
import {
  callError,
  callOk,
  callTool,
  connect,
  type Connection,
  firstText,
  tempHome,
} from "./harness.ts";
import { type SimNode, type SimNodeOptions, startSimNode } from "./sim_node/mod.ts";
import { rpc } from "./sim_node/testing.ts";

const ERA = "2025-11-25";

/** Two nodes, A and B, each with its own server; B joined A's namespace of `app` through the tools. */
async function twoNodes(
  fn: (n: {
    a: SimNode;
    b: SimNode;
    connA: Connection;
    connB: Connection;
    namespaceId: string;
    joined: Record<string, unknown>;
  }) => Promise<void>,
  options: { app?: string; contextFirst?: boolean; b?: SimNodeOptions } = {},
): Promise<void> {
  const app = options.app ?? "kv-store";
  const a = await startSimNode({ apps: ["kv-store", "bignum"] });
  // Joins are set-up here: answered at once (a real node takes about 2 s).
  const b = await startSimNode({ apps: ["kv-store", "bignum"], namespaceJoinMs: 0, ...options.b });
  await using homeA = await tempHome({ CALIMERO_NODE_URL: a.url });
  await using homeB = await tempHome({ CALIMERO_NODE_URL: b.url });
  const connA = await connect({ era: ERA, env: homeA.env });
  const connB = await connect({ era: ERA, env: homeB.env });
  try {
    const { namespaceId } = await callOk(connA, "create_namespace", { application: app });
    if (options.contextFirst !== false) {
      await callOk(connA, "create_context", {
        application: app,
        namespace: namespaceId,
        name: "shared",
      });
    }
    // The invite's text as is: its integers are exact, and join_namespace takes the whole answer.
    const invite = firstText(
      await callTool(connA, "invite_to_namespace", { namespace: namespaceId }),
    );
    const joined = await callOk(connB, "join_namespace", {
      namespace: namespaceId,
      invitation: invite,
    });
    await fn({ a, b, connA, connB, namespaceId, joined });
  } finally {
    await connA.close();
    await connB.close();
    await a.close();
    await b.close();
  }
}

Deno.test("#5 join_namespace: the node follows the namespace's contexts by itself; calls say Uninitialized until sync_context", async () => {
  await twoNodes(async ({ a, connB, joined }) => {
    const [followed] = joined.contexts as {
      contextId: string;
      isInitialized: boolean;
      syncState: string;
    }[];
    assert.ok(followed, JSON.stringify(joined));
    assert.deepEqual([followed.isInitialized, followed.syncState], [false, "waitingForPeers"]);
    assert.match(
      joined.note as string,
      /follows the namespace's contexts by itself.*not synced yet.*sync_context/,
    );
    const contextId = followed.contextId;
    await rpc(a, contextId, "set", { key: "k", value: "from A" });
    const early = await callError(connB, "call", {
      app: "kv-store",
      context: contextId,
      method: "get",
      args: { key: "k" },
    });
    assert.match(early, /not synced to this node yet.*sync_context/);
    const synced = await callOk(connB, "sync_context", { context: contextId });
    assert.deepEqual([synced.isInitialized, synced.syncState], [true, "idle"]);
    assert.match(synced.note, /Synced/);
    const value = await callTool(connB, "call", {
      app: "kv-store",
      context: contextId,
      method: "get",
      args: { key: "k" },
    });
    assert.equal(firstText(value), '"from A"');
  }, { b: { syncDelayMs: 60_000 } });
});

Deno.test("#1 a peer's write to an app without events is no event on this node, and wait_for_events says so up front", async () => {
  await twoNodes(async ({ a, connB, joined }) => {
    const contextId = (joined.contexts as { contextId: string }[])[0].contextId;
    await callOk(connB, "sync_context", { context: contextId });
    const first = await callOk(connB, "wait_for_events", { context: contextId, timeout_s: 0 });
    assert.match(
      first.notes.join(" "),
      /declares no events: writes made through other nodes arrive without any event/,
    );
    await rpc(a, contextId, "echo_u64", { x: "1" }); // a view: nothing
    await rpc(a, contextId, "add_u64", { a: "1", b: 2 }); // a write on A, no app events
    const waited = await callOk(connB, "wait_for_events", {
      context: contextId,
      after: first.cursor,
      timeout_s: 1,
    });
    assert.deepEqual(waited.events, [], "core sends a peer's write only with app events");
    assert.equal(waited.timedOut, true);
  }, { app: "bignum" });
});

Deno.test("#3 create_context with an app that is not the namespace's is refused, naming the app that would run", async () => {
  await twoNodes(async ({ connA, namespaceId }) => {
    const refused = await callError(connA, "create_context", {
      application: "bignum",
      namespace: namespaceId,
    });
    assert.match(
      refused,
      /runs com\.calimero\.kv-store.*not com\.calimero\.bignum: the node would create a context of the group's app/,
    );
    const made = await callOk(connA, "create_context", {
      application: "kv-store",
      namespace: namespaceId,
    });
    assert.equal(
      made.applicationId,
      (await callOk(connA, "list_applications")).apps.find((x: { package: string }) =>
        x.package === "com.calimero.kv-store"
      ).id,
    );
  });
});

Deno.test("#6 create_context's bare 500s are explained: not a member, no create_context capability, unknown group", async () => {
  await twoNodes(async ({ connA, connB, namespaceId, joined }) => {
    const denied = await callError(connB, "create_context", {
      application: "kv-store",
      namespace: namespaceId,
    });
    assert.match(
      denied,
      /this node is Member in group .* without the create_context capability.*set_member_capabilities/,
    );
    const account = joined.memberAccount as string;
    const granted = await callOk(connA, "set_member_capabilities", {
      group: namespaceId,
      member: account,
      grant: ["create_context"],
    });
    // A namespace's members start with join_open_subgroups (core namespace_created.rs; a real merod agrees).
    assert.deepEqual(granted.capabilities, ["create_context", "join_open_subgroups"]);
    assert.equal(granted.changed, true);
    const made = await callOk(connB, "create_context", {
      application: "kv-store",
      namespace: namespaceId,
    });
    assert.ok(made.contextId);
    const unknown = await callError(connB, "create_context", {
      application: "kv-store",
      namespace: "ab".repeat(32),
    });
    assert.match(unknown, /group (ab){32} is not known to this node/);
  });
});

Deno.test("#4 join_context waits as long as core looks for the group (over the request timeout), then explains", async () => {
  // The join keeps its own limit (core looks for 30 s), not CALIMERO_NODE_TIMEOUT_MS: with that set to 1 s, a node
  // that looks for 5.5 s (past the 5 s after which the refusal is read as "looked and found nothing") is waited for.
  const sim = await startSimNode({ apps: ["kv-store"], joinLookupMs: 5_500 });
  await using home = await tempHome({
    CALIMERO_NODE_URL: sim.url,
    CALIMERO_NODE_TIMEOUT_MS: "1000",
  });
  const conn = await connect({ era: ERA, env: home.env });
  try {
    const started = Date.now();
    const text = await callError(conn, "join_context", {
      context: "11111111111111111111111111111111",
    });
    assert.ok(Date.now() - started >= 5_500, "the client waited for the node's answer");
    assert.match(text, /after looking for its group for up to 30 s.*join_namespace/);
    assert.doesNotMatch(text, /timed out/);
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("#7 #8 a burst past the node's buffer is marked as a possible gap; sync chatter never evicts app events", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  const { contextId } = sim.createContext(sim.appId("kv-store"));
  await using home = await tempHome({ CALIMERO_NODE_URL: sim.url });
  const conn = await connect({ era: ERA, env: home.env });
  try {
    const start = await callOk(conn, "wait_for_events", { context: contextId, timeout_s: 0 });
    await rpc(sim, contextId, "set", { key: "k", value: "v" }); // an app event (Inserted)
    sim.emitEvents(contextId, "SyncStatus", 600); // a long day of sync sessions
    const after = await callOk(conn, "wait_for_events", {
      context: contextId,
      after: start.cursor,
      timeout_s: 2,
    });
    assert.ok(
      after.events.some((e: { type: string }) => e.type !== "sync_status" && e.type !== "gap"),
      JSON.stringify(after).slice(0, 400),
    );
    assert.ok(
      !(after.notes ?? []).some((n: string) => /dropped/.test(n)),
      "no app event was dropped",
    );
    sim.emitEvents(contextId, "StateMutation", 300); // more than the node's 256 in one go
    const burst = await callOk(conn, "wait_for_events", {
      context: contextId,
      after: after.cursor,
      timeout_s: 2,
    });
    const gap = burst.events.find((e: { type: string }) => e.type === "gap");
    assert.ok(gap, JSON.stringify(burst).slice(0, 300));
    assert.match(JSON.stringify(gap), /its event buffer holds 256/);
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("#10 upload_blob: the hash is the content's sha256; a blob id passed as hash is refused before the upload", async () => {
  const sim = await startSimNode({ apps: [] });
  await using home = await tempHome({ CALIMERO_NODE_URL: sim.url });
  const conn = await connect({ era: ERA, env: home.env });
  try {
    const data = btoa("hello blob");
    const first = await callOk(conn, "upload_blob", { data });
    assert.notEqual(first.hash, first.blobId);
    const again = await callOk(conn, "upload_blob", { data, hash: first.hash });
    assert.equal(again.blobId, first.blobId, "the node accepted the content hash");
    const asId = await callError(conn, "upload_blob", { data, hash: first.blobId });
    assert.match(
      asId,
      /blob id, a hash of their chunk hashes; the node checks the content hash instead/,
    );
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("#11 governance refusals explained; members removed and roles changed; a context left", async () => {
  await twoNodes(async ({ a, connA, connB, namespaceId, joined }) => {
    const { groupId } = await callOk(connA, "create_group", {
      namespace: namespaceId,
      name: "private",
    });
    const listing = await callError(connB, "list_group_members", { group: groupId });
    assert.match(listing, /not a member of group .* only members may list its members/);
    const subInvite = await callError(connA, "invite_to_namespace", { namespace: groupId });
    assert.match(subInvite, /is a subgroup, not a namespace/);
    const account = joined.memberAccount as string;
    assert.match(
      await callOk(connA, "set_member_role", {
        group: namespaceId,
        member: account,
        role: "ReadOnly",
      }),
      /is now ReadOnly/,
    );
    const members = await callOk(connA, "list_group_members", { group: namespaceId });
    assert.equal(
      members.members.find((m: { identity: string }) => m.identity === account).role,
      "ReadOnly",
    );
    const notMember = await callError(connA, "set_member_role", {
      group: groupId,
      member: account,
      role: "Member",
    });
    assert.match(notMember, /is not a member of group/);
    assert.match(
      await callOk(connA, "remove_group_members", { group: namespaceId, members: [account] }),
      /Removed/,
    );
    const ctx = (joined.contexts as { contextId: string }[])[0].contextId;
    const ids = await callOk(connA, "list_context_identities", { context: ctx, owned: true });
    assert.equal(ids.identities.length, 1);
    const left = await callOk(connA, "leave_context", { context: ctx });
    assert.equal(left.contextId, ctx);
    // core keeps a left context listed with its state; only this node's identity there goes (leave_context.rs).
    assert.equal(a.state.contexts.get(ctx)?.left, true);
    const status = await callOk(connA, "node_status");
    assert.equal(status.identity.accountId, a.identity.accountId);
  });
});

Deno.test("#2 raw .wasm installs get names: a path install a package, a URL install its metadata name; no two are 'unknown'", async () => {
  const sim = await startSimNode({ apps: [] });
  await using home = await tempHome({ CALIMERO_NODE_URL: sim.url });
  const conn = await connect({ era: ERA, env: home.env });
  try {
    const byPath = await callOk(conn, "install_application", { path: "/srv/apps/kv-store.wasm" });
    assert.match(byPath.note, /package wasm\.kv-store version 0\.0\.0/);
    const byUrl = await callOk(conn, "install_application", {
      url: "https://apps.example.com/bignum.wasm",
    });
    assert.match(byUrl.note, /records it as package "unknown".*knows it as "bignum"/);
    const { apps } = await callOk(conn, "list_applications");
    assert.deepEqual(
      apps.map((x: { package: string | null }) => x.package).sort(),
      [null, "wasm.kv-store"].sort(),
    );
    const { tools } = await conn.client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.some((n) => n.startsWith("kv_store_")), names.join(","));
    assert.ok(names.some((n) => n.startsWith("bignum_")), names.join(","));
    assert.ok(!names.some((n) => n.startsWith("unknown_")));
    const described = await callOk(conn, "describe_app", { app: "bignum" });
    assert.equal(described.applicationId, byUrl.applicationId);
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("#9 a refresh token spent elsewhere is not a revocation; a revoked env token says so and what to set", async () => {
  const sim = await startSimNode({ apps: [], auth: { username: "u", password: "p" } });
  try {
    const pair = sim.issueTokens();
    await using home = await tempHome({
      CALIMERO_NODE_URL: sim.url,
      CALIMERO_AUTH_TOKEN: pair.access_token,
      CALIMERO_REFRESH_TOKEN: pair.refresh_token,
    });
    const conn = await connect({ era: ERA, env: home.env });
    try {
      await callOk(conn, "list_applications");
      sim.expireTokens();
      // Another client spends the refresh token first; core keeps that client's new pair valid.
      const spent = await fetch(`${sim.url}/auth/refresh`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(pair),
      });
      const other = (await spent.json()).data as { access_token: string };
      const text = await callError(conn, "list_applications");
      assert.match(
        text,
        /already used by another client, so this copy is spent.*a handoff \(a client key\) the node revoked its whole family.*CALIMERO_AUTH_TOKEN/,
      );
      const still = await fetch(`${sim.url}/admin-api/applications`, {
        headers: { authorization: `Bearer ${other.access_token}` },
      });
      await still.body?.cancel();
      assert.equal(still.status, 200, "the other client's pair still works");
    } finally {
      await conn.close();
    }
    const fresh = sim.issueTokens();
    await using home2 = await tempHome({
      CALIMERO_NODE_URL: sim.url,
      CALIMERO_AUTH_TOKEN: fresh.access_token,
      CALIMERO_REFRESH_TOKEN: fresh.refresh_token,
    });
    const conn2 = await connect({ era: ERA, env: home2.env });
    try {
      sim.revokeTokens();
      sim.expireTokens();
      const text = await callError(conn2, "list_applications");
      assert.match(
        text,
        /no longer accepts this token: it was revoked, or this node never issued it.*Set a new CALIMERO_AUTH_TOKEN/,
      );
      assert.doesNotMatch(text, /Key not found/);
    } finally {
      await conn2.close();
    }
  } finally {
    await sim.close();
  }
});
