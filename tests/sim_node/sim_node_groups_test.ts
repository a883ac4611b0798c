// Namespaces and groups on the simulated node: pages, required upgradePolicy, delete with a JSON
// body, signed invitations checked key by key, joins from a second node, members and visibility.

import assert from "assert";
import { isHexId } from "./ids.ts";
import { parseLossless, stringifyExact } from "./json.ts";
import type { SimNode } from "./mod.ts";
import { call, rpc, withSim } from "./testing.ts";

const A = "/admin-api";
const dataOf = <T>(answer: { body: unknown }) => (answer.body as { data: T }).data;

async function invite(sim: SimNode, namespaceId: string): Promise<string> {
  const answer = await call(sim, "POST", `${A}/namespaces/${namespaceId}/invite`, {});
  assert.equal(answer.status, 200, answer.text);
  const text = answer.text;
  const start = text.indexOf('"invitation":') + '"invitation":'.length;
  const signed = parseLossless(text) as { data: { invitation: unknown } };
  const exact = stringifyExact(signed.data.invitation);
  assert.equal(text.slice(start, start + exact.length), exact, "re-serialisation is exact");
  return exact;
}

function join(sim: SimNode, namespaceId: string, invitationText: string) {
  return call(
    sim,
    "POST",
    `${A}/namespaces/${namespaceId}/join`,
    `{"invitation":${invitationText}}`,
    { "content-type": "application/json" },
  );
}

Deno.test("namespaces ignore upgradePolicy (gone since rc.21), come in pages and are deleted with a JSON body", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    const applicationId = sim.appId("kv-store");
    const bare = await call(sim, "POST", `${A}/namespaces`, { applicationId });
    assert.equal(bare.status, 200, "no upgradePolicy needed");
    const created = await call(sim, "POST", `${A}/namespaces`, {
      applicationId,
      name: "team",
      upgradePolicy: "LazyOnAccess",
    });
    const { namespaceId } = dataOf<{ namespaceId: string }>(created);
    assert.ok(isHexId(namespaceId));
    for (let i = 0; i < 4; i++) sim.createNamespace(applicationId);
    const list = dataOf<{ namespaceId: string; name: string }[]>(
      await call(sim, "GET", `${A}/namespaces`),
    );
    assert.equal(list.length, 6);
    assert.equal(list[1].name, "team");
    assert.equal(
      dataOf<unknown[]>(await call(sim, "GET", `${A}/namespaces?offset=4&limit=10`)).length,
      2,
    );
    const { contextId } = sim.createContext(applicationId, { groupId: namespaceId });
    const noBody = await call(sim, "DELETE", `${A}/namespaces/${namespaceId}`);
    assert.deepEqual([noBody.status, noBody.body], [400, {
      error: "Expected request with `Content-Type: application/json`",
    }], "a ValidatedJson route's rejection is a JSON 400");
    const deleted = await call(sim, "DELETE", `${A}/namespaces/${namespaceId}`, {});
    assert.deepEqual(deleted.body, { data: { isDeleted: true } });
    assert.equal(
      (await call(sim, "GET", `${A}/contexts/${contextId}`)).status,
      200,
      "contexts outlive it",
    );
  });
});

Deno.test("an invitation has snake_case keys in a fixed order and an expiry in seconds, a year on", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    const namespaceId = sim.createNamespace(sim.appId("kv-store"), "team");
    const signed = parseLossless(await invite(sim, namespaceId)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(signed), [
      "invitation",
      "inviter_signature",
      "inviter_account",
      "application_id",
      "app_key",
    ]);
    const inner = signed.invitation as Record<string, unknown>;
    assert.deepEqual(Object.keys(inner), [
      "inviter_identity",
      "group_id",
      "expiration_timestamp",
      "secret_salt",
      "invited_role",
    ]);
    // core: seconds since the epoch, a year from now by default (create_group_invitation.rs).
    const expiry = Number(inner.expiration_timestamp);
    assert.ok(Math.abs(expiry - (Date.now() / 1000 + 365 * 86_400)) < 60, String(expiry));
    assert.equal((inner.secret_salt as number[]).length, 32);
  });
});

Deno.test("a join must carry the invitation exactly: reordered or altered ones are refused", async () => {
  await withSim({ apps: ["kv-store"] }, async (a) => {
    await withSim({ apps: ["kv-store"] }, async (b) => {
      const namespaceId = a.createNamespace(a.appId("kv-store"), "team");
      const exact = await invite(a, namespaceId);
      const value = parseLossless(exact) as { invitation: Record<string, unknown> };
      const { inviter_identity, group_id, ...rest } = value.invitation;
      const reordered = stringifyExact({
        ...value,
        invitation: { group_id, inviter_identity, ...rest },
      });
      const altered = exact.replace('"invited_role":1', '"invited_role":0');
      for (const [name, text] of [["reordered", reordered], ["altered", altered]]) {
        const answer = await join(b, namespaceId, text);
        assert.equal(answer.status, 400, name);
        assert.match(
          (answer.body as { error: string }).error,
          /invalid invitation signature/,
          name,
        );
      }
      const joined = await join(b, namespaceId, exact);
      assert.equal(joined.status, 200, joined.text);
      assert.deepEqual(dataOf(joined), {
        namespaceId,
        memberIdentity: b.identity.publicKey,
        memberAccount: b.identity.accountId,
      });
    });
  });
});

Deno.test("a second node that joins a namespace follows its contexts by itself, and their state arrives by sync", async () => {
  await withSim({ apps: ["kv-store"] }, async (a) => {
    await withSim({ apps: ["kv-store"], joinLookupMs: 200 }, async (b) => {
      const app = a.appId("kv-store");
      const namespaceId = a.createNamespace(app, "team");
      const { contextId } = a.createContext(app, { groupId: namespaceId });
      await rpc(a, contextId, "set", { key: "k", value: "from a" });
      // core looks for the context's group (30 s; 200 ms here), then fails untyped: a bare 500.
      const early = await call(b, "POST", `${A}/contexts/${contextId}/join`, {});
      assert.deepEqual([early.status, early.body], [500, { error: "Internal server error" }]);
      assert.equal((await join(b, namespaceId, await invite(a, namespaceId))).status, 200);
      // Auto-follow: b holds the context without joining it, and has no state until it syncs.
      const listed = dataOf<{ contexts: { id: string }[] }>(await call(b, "GET", `${A}/contexts`));
      assert.deepEqual(listed.contexts.map((c) => c.id), [contextId]);
      assert.deepEqual((await rpc(b, contextId, "get", { key: "k" })).error, {
        type: "Uninitialized",
      });
      const before = await call(b, "POST", "/jsonrpc", {
        jsonrpc: "2.0",
        id: 2,
        method: "sync_status",
        params: { contextId },
      });
      assert.deepEqual((before.body as { result: unknown }).result, {
        contextId,
        isInitialized: false,
        syncState: { state: "waitingForPeers" },
        failureCount: 0,
      });
      assert.equal((await call(b, "POST", `${A}/contexts/sync/${contextId}`)).status, 200);
      const output = (await rpc(b, contextId, "get", { key: "k" })).result as { output: string };
      assert.equal(output.output, "from a");
      const joined = dataOf<{ contextId: string; memberPublicKey: string }>(
        await call(b, "POST", `${A}/contexts/${contextId}/join`, {}),
      );
      assert.equal(joined.contextId, contextId, "joining a followed context answers it");
      const members = await call(a, "GET", `${A}/groups/${namespaceId}/members`);
      assert.deepEqual(members.body, {
        members: [
          { identity: a.identity.accountId, role: "Admin" },
          { identity: b.identity.accountId, role: "Member" },
        ],
      });
    });
  });
});

Deno.test("groups: groupName and visibility at birth, members by account or bound key, paged, metadata, joining", async () => {
  await withSim({ apps: ["kv-store"] }, async (a) => {
    await withSim({ apps: ["kv-store"] }, async (b) => {
      const app = a.appId("kv-store");
      const namespaceId = a.createNamespace(app, "team");
      const sub = await call(a, "POST", `${A}/groups`, {
        applicationId: app,
        parentGroupId: namespaceId,
      });
      assert.equal(sub.status, 200, "upgradePolicy is not required");
      const { groupId } = dataOf<{ groupId: string }>(
        await call(a, "POST", `${A}/namespaces/${namespaceId}/groups`, {
          groupName: "ops",
          name: "x",
        }),
      );
      const group = dataOf<Record<string, unknown>>(await call(a, "GET", `${A}/groups/${groupId}`));
      assert.equal(group.subgroupVisibility, "restricted");
      assert.equal(group.name, "ops", "core reads groupName, not name");
      assert.equal(group.targetApplicationId, app);
      const born = dataOf<{ groupId: string }>(
        await call(a, "POST", `${A}/namespaces/${namespaceId}/groups`, { visibility: "open" }),
      );
      assert.equal(
        dataOf<Record<string, unknown>>(await call(a, "GET", `${A}/groups/${born.groupId}`))
          .subgroupVisibility,
        "open",
      );
      const listed = (await call(a, "GET", `${A}/namespaces/${namespaceId}/groups`)).body as {
        data: { groupId: string; name?: string }[];
      };
      assert.ok(listed.data.some((g) => g.groupId === groupId && g.name === "ops"));

      const unbound = await call(a, "POST", `${A}/groups/${groupId}/members`, {
        members: [{ identity: b.identity.publicKey, role: "ReadOnly" }],
      });
      assert.deepEqual([unbound.status, unbound.body], [500, { error: "Internal server error" }]);
      const add = await call(a, "POST", `${A}/groups/${groupId}/members`, {
        members: [{ identity: b.identity.accountId, role: "ReadOnly" }],
      });
      assert.deepEqual(
        [add.status, add.body],
        [200, {}],
        "an account is taken as given; a flat {}",
      );
      const tee = await call(a, "POST", `${A}/groups/${groupId}/members`, {
        members: [{ identity: b.identity.accountId, role: "ReadOnlyTee" }],
      });
      assert.equal(tee.status, 400);
      assert.match(tee.text, /ReadOnlyTee role can only be assigned via TEE attestation/);
      const badRole = await call(a, "POST", `${A}/groups/${groupId}/members`, {
        members: [{ identity: b.identity.accountId, role: "Owner" }],
      });
      assert.equal(badRole.status, 400);
      assert.match(String((badRole.body as { error: string }).error), /^Invalid JSON data: /);
      const members = (await call(a, "GET", `${A}/groups/${groupId}/members`)).body as {
        members: { identity: string; role: string }[];
      };
      assert.ok(members.members.every((m) => isHexId(m.identity)), "listings show hex accounts");
      assert.equal(members.members.length, 2);
      const second = (await call(a, "GET", `${A}/groups/${groupId}/members?offset=1&limit=1`))
        .body as {
          members: unknown[];
        };
      assert.deepEqual(second.members, [members.members[1]], "members come in pages");

      await call(a, "PUT", `${A}/groups/${groupId}/metadata`, {
        name: "operations",
        data: { k: "v" },
      });
      await call(a, "PUT", `${A}/groups/${groupId}/metadata`, { name: "ops team" });
      assert.deepEqual(dataOf(await call(a, "GET", `${A}/groups/${groupId}/metadata`)), {
        name: "ops team",
        data: {},
      }, "an omitted data is replaced with {}");

      assert.equal((await join(b, namespaceId, await invite(a, namespaceId))).status, 200);
      const byKey = await call(a, "POST", `${A}/groups/${groupId}/members`, {
        members: [{ identity: b.identity.publicKey, role: "Member" }],
      });
      assert.equal(byKey.status, 200, "a key the join bound to an account resolves");
      const subgroups = (await call(a, "GET", `${A}/groups/${namespaceId}/subgroups`)).body as {
        subgroups: { groupId: string }[];
      };
      assert.ok(subgroups.subgroups.some((g) => g.groupId === groupId), "a flat {subgroups} body");
      const other = dataOf<{ groupId: string }>(
        await call(a, "POST", `${A}/namespaces/${namespaceId}/groups`, { groupName: "closed" }),
      ).groupId;
      const closed = await call(b, "POST", `${A}/groups/${other}/join-via-inheritance`, {});
      assert.equal(closed.status, 403);
      await call(a, "PUT", `${A}/groups/${other}/settings/subgroup-visibility`, {
        subgroupVisibility: "open",
      });
      const open = await call(b, "POST", `${A}/groups/${other}/join-via-inheritance`, {});
      assert.deepEqual(dataOf(open), {
        groupId: other,
        memberPublicKey: b.identity.publicKey,
        wasInherited: true,
      });
    });
  });
});
