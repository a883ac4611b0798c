// The fixed tools end to end: the real process against simulated nodes, in both protocol eras. One process
// per node and era; the steps of a scenario share it and run in order (each builds on the previous one).

import assert from "assert";
import {
  callError,
  callOk,
  callTool,
  connect,
  type Connection,
  ERAS,
  firstText,
  tempHome,
  unusedPort,
} from "./harness.ts";
import { parseLossless, type SimNode, startSimNode, stringifyExact } from "./sim_node/mod.ts";

async function nodeGet(sim: SimNode, path: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${sim.url}/admin-api${path}`);
  const body = await response.json();
  return body.data ?? body;
}

async function toolNames(conn: Connection): Promise<string[]> {
  return (await conn.client.listTools(undefined, { cacheMode: "refresh" })).tools.map((t) =>
    t.name
  );
}

for (const era of ERAS) {
  Deno.test(`[${era}] core tools: status, nodes, apps, namespace → context → alias → delete`, async (t) => {
    const sim = await startSimNode({
      apps: ["kv-store", "bignum", "mero-issue-tracker", "mero-drive-docs"],
    });
    const home = await Deno.makeTempDir({ prefix: "mero-mcp-nodes-" });
    const otherPort = await unusedPort();
    await Deno.mkdir(`${home}/alpha`);
    await Deno.writeTextFile(
      `${home}/alpha/config.toml`,
      `[server]\nlisten = ["/ip4/127.0.0.1/tcp/${otherPort}"]\n`,
    );
    await using temp = await tempHome({
      CALIMERO_NODE_URL: sim.url,
      CALIMERO_NODE_HOME: home,
      CALIMERO_MCP_PROBE_PORTS: `${sim.port},${await unusedPort()}`,
    });
    const conn = await connect({ era, env: temp.env });
    try {
      await t.step("node_status reports health, discovery and auth after connecting", async () => {
        sim.setPeers(2);
        const status = await callOk(conn, "node_status");
        assert.deepEqual(Object.keys(status), [
          "health",
          "url",
          "nodeName",
          "discoverySource",
          "authMode",
          "auth",
          "credential",
          "identity",
          "ready",
          "peers",
          "network",
          "usage",
          "events",
          "notAnswering",
        ]);
        assert.equal(status.ready, "ready");
        assert.equal(status.peers, 2);
        assert.equal(status.network.reachability, "unknown");
        assert.equal(typeof status.usage.namespaces, "number");
        assert.equal(status.health, "alive");
        assert.match(status.events, /no context watched/);
        assert.equal(status.url, sim.url);
        assert.equal(status.nodeName, null);
        assert.equal(status.discoverySource, "env");
        assert.equal(status.authMode, "none");
        assert.equal(status.auth, "ok");
        assert.ok(Array.isArray(status.notAnswering));
      });

      await t.step(
        "node_status says why contexts may not sync: no peer, or a node not ready",
        async () => {
          sim.setPeers(0);
          const alone = await callOk(conn, "node_status");
          assert.equal(alone.peers, 0);
          assert.match(alone.note, /connected to no peer and holds no relay reservation/);
          sim.setReadiness("starting");
          const starting = await callOk(conn, "node_status");
          assert.equal(starting.ready, "starting");
          assert.match(starting.note, /The node is starting, not ready/);
          sim.setReadiness("ready");
          sim.setPeers(null);
        },
      );

      await t.step(
        "list_nodes lists the scanned node, then the probed port, marking the active one",
        async () => {
          const { nodes } = await callOk(conn, "list_nodes");
          assert.deepEqual(nodes[0], {
            name: "alpha",
            url: `http://localhost:${otherPort}`,
            active: false,
          });
          assert.deepEqual(nodes[1], {
            name: null,
            url: `http://localhost:${sim.port}`,
            active: true,
          });
          assert.equal(nodes.length, 2);
        },
      );

      await t.step(
        "list_applications shows package, version, signer, metadata without guide, procedures",
        async () => {
          const { apps, notAnswering } = await callOk(conn, "list_applications");
          assert.ok(Array.isArray(notAnswering));
          const kv = apps.find((a: { package: string }) => a.package === "com.calimero.kv-store");
          assert.equal(kv.id, sim.appId("kv-store"));
          assert.equal(kv.appVersion, "1.0.0");
          assert.match(kv.signerId, /^did:key:z/);
          assert.deepEqual(kv.services, []);
          const tracker = apps.find((a: { package: string }) =>
            a.package === "com.calimero.mero-issue-tracker"
          );
          assert.ok(tracker.procedures.length > 0, "the tracker's guide has procedures");
          assert.ok(tracker.metadata !== null && !("guide" in tracker.metadata));
          assert.deepEqual(tracker.services, []);
          const drive = apps.find((a: { package: string }) =>
            a.package === "com.calimero.mero-drive-docs"
          );
          assert.deepEqual(drive.services, ["registry", "docs"], "from the app's own record");
          assert.equal(drive.metadata.name, "Drive Docs", "a bundle's metadata is its manifest's");
        },
      );

      let namespaceId = "";
      let contextId = "";
      await t.step(
        "create_namespace resolves the app by short name; list_namespaces shows it",
        async () => {
          ({ namespaceId } = await callOk(conn, "create_namespace", {
            application: "kv-store",
            name: "e2e",
          }));
          assert.match(namespaceId, /^[0-9a-f]{64}$/);
          const { namespaces } = await callOk(conn, "list_namespaces");
          assert.ok(
            namespaces.some((ns: { namespaceId: string }) => ns.namespaceId === namespaceId),
          );
        },
      );

      await t.step(
        "create_context in the namespace; list_contexts renders dagHeads as hex",
        async () => {
          const created = await callOk(conn, "create_context", {
            application: "com.calimero.kv-store",
            namespace: namespaceId,
            name: "shop",
          });
          assert.deepEqual(Object.keys(created), ["contextId", "memberPublicKey", "applicationId"]);
          assert.equal(created.applicationId, sim.appId("kv-store"));
          contextId = created.contextId;
          const { contexts } = await callOk(conn, "list_contexts", { application: "kv-store" });
          const context = contexts.find((c: { id: string }) => c.id === contextId);
          assert.ok(context, "the new context is listed for its app");
          for (const head of context.dagHeads ?? []) assert.match(head, /^[0-9a-f]*$/);
          const all = await callOk(conn, "list_contexts");
          assert.ok(all.contexts.some((c: { id: string }) => c.id === contextId));
        },
      );

      await t.step("create_alias → lookup_alias → delete_context by alias", async () => {
        const sentence = await callOk(conn, "create_alias", { alias: "shop", context: contextId });
        assert.equal(typeof sentence, "string");
        assert.ok(sentence.includes(contextId));
        assert.deepEqual(await callOk(conn, "lookup_alias", { name: "shop" }), {
          alias: "shop",
          contextId,
        });
        await callOk(conn, "create_alias", { alias: "spare", context: contextId });
        const listed = await callOk(conn, "list_aliases");
        assert.deepEqual(
          listed.aliases.filter((a: { contextId: string }) => a.contextId === contextId),
          [{ alias: "shop", contextId }, { alias: "spare", contextId }],
        );
        assert.match(
          await callOk(conn, "delete_alias", { name: "spare" }),
          new RegExp(`"spare" is removed; context ${contextId} stays`),
        );
        assert.match(await callOk(conn, "delete_alias", { name: "spare" }), /nothing to remove/);
        assert.equal((await callOk(conn, "lookup_alias", { name: "spare" })).contextId, null);
        assert.deepEqual(await callOk(conn, "delete_context", { context: "shop" }), {
          isDeleted: true,
        });
        const { contexts } = await callOk(conn, "list_contexts");
        assert.ok(!contexts.some((c: { id: string }) => c.id === contextId));
      });

      await t.step(
        "lookup_alias of an unknown alias is a success with a null and a sentence",
        async () => {
          const miss = await callOk(conn, "lookup_alias", { name: "nowhere" });
          assert.equal(miss.contextId, null);
          assert.match(miss.note, /No alias "nowhere" exists on this node/);
        },
      );

      await t.step("create_context validates args against init and sends them", async () => {
        const bignum = sim.appId("bignum");
        const ledgers = sim.createNamespace(bignum);
        const { contextId: withArgs } = await callOk(conn, "create_context", {
          application: bignum,
          group: ledgers,
          args: { label: "ledger" },
        });
        assert.equal(sim.contextState(withArgs)?.label, "ledger");
        const bad = await callError(conn, "create_context", {
          application: bignum,
          group: ledgers,
          args: { label: 42 },
        });
        assert.match(bad, /label/);
        assert.match(bad, /init/);
      });

      await t.step(
        "create_context refuses args for an app without init, and a missing group",
        async () => {
          const noInit = sim.install({
            package: "com.test.no-init",
            version: "1.0.0",
            abi: {
              schema_version: "wasm-abi/1",
              types: {},
              methods: [{ name: "ping", params: [], returns: { kind: "string" } }],
              events: [],
            },
          });
          const message = await callError(conn, "create_context", {
            application: noInit.applicationId,
            group: sim.createNamespace(noInit.applicationId),
            args: { x: 1 },
          });
          assert.match(message, /no init method/);
          // No group, and the app has two namespaces here: which to pass is asked for.
          sim.createNamespace(noInit.applicationId);
          assert.match(
            await callError(conn, "create_context", { application: noInit.applicationId }),
            /Pass group: .* has 2 namespaces on this node/,
          );
        },
      );

      await t.step("join_context answers contextId and memberPublicKey", async () => {
        const { contextId: other } = sim.createContext(sim.appId("kv-store"));
        const joined = await callOk(conn, "join_context", { context: other });
        assert.equal(joined.contextId, other);
        assert.equal(typeof joined.memberPublicKey, "string");
      });

      await t.step("an unknown application is an error listing what is installed", async () => {
        const message = await callError(conn, "create_namespace", { application: "no-such-app" });
        assert.match(message, /no-such-app/);
        assert.match(message, /kv-store/);
      });

      await t.step("a node error body becomes the tool's error message", async () => {
        const message = await callError(conn, "delete_context", {
          context: "11111111111111111111111111111111",
        });
        assert.doesNotMatch(message, /undefined|\[object/);
        assert.ok(message.length > "Error: ".length + 5, message);
      });

      await t.step(
        "a node that is down: tools fail saying so, node_status still answers",
        async () => {
          sim.setFault({ kind: "down" });
          try {
            assert.match(await callError(conn, "list_namespaces"), /cannot reach the node/);
            const status = await callOk(conn, "node_status");
            assert.match(status.health, /cannot reach the node/);
            assert.match(status.auth, /^not checked/);
          } finally {
            sim.setFault(null);
          }
          assert.equal((await callOk(conn, "node_status")).health, "alive");
        },
      );
    } finally {
      await conn.close();
      await sim.close();
      await Deno.remove(home, { recursive: true });
    }
  });

  Deno.test(`[${era}] blobs tools: install → list → uninstall, blob upload → list → delete`, async (t) => {
    // A node before 0.11.0-rc.10 downloads from its own localhost registry; the server is told it may send that.
    const sim = await startSimNode({ apps: ["bignum"], installUrlChecks: false });
    await using temp = await tempHome({
      CALIMERO_NODE_URL: sim.url,
      CALIMERO_REGISTRY_URL: sim.url,
      CALIMERO_MCP_ALLOW_LOCAL_URLS: "1",
    });
    const conn = await connect({ era, env: temp.env });
    try {
      await t.step(
        "install by registry coords awaits the refresh: the app's tools are listed",
        async () => {
          assert.ok(!(await toolNames(conn)).some((n) => n.startsWith("kv_store_")));
          const { applicationId } = await callOk(conn, "install_application", {
            coords: "com.calimero.kv-store@1.0.0",
          });
          assert.equal(applicationId, sim.appId("kv-store"));
          assert.ok(sim.counts("GET /api/v2/bundles/com.calimero.kv-store/1.0.0") === 1);
          const { apps } = await callOk(conn, "list_applications");
          assert.ok(apps.some((a: { id: string }) => a.id === applicationId));
          assert.ok((await toolNames(conn)).some((n) => n.startsWith("kv_store_")));
        },
      );

      await t.step("uninstall by name removes the app and its tools", async () => {
        const answer = await callOk(conn, "uninstall_application", { application: "kv-store" });
        assert.deepEqual(answer, { applicationId: sim.appId("kv-store") });
        assert.ok(!(await toolNames(conn)).some((n) => n.startsWith("kv_store_")));
      });

      await t.step(
        "install by url; a bundle the node cannot fetch is the node's error",
        async () => {
          // A raw .wasm from a URL: core records package "unknown", so it is known by its metadata name.
          const { applicationId, name } = await callOk(conn, "install_application", {
            url: "https://bundles.example/kv-store.wasm",
          });
          assert.equal(name, "kv-store");
          assert.ok(sim.state.apps.has(applicationId));
          const message = await callError(conn, "install_application", {
            url: "https://bundles.example/nothing.wasm",
          });
          assert.match(message, /Failed to install application/);
        },
      );

      await t.step("coords errors: bad form, unknown version, both or neither input", async () => {
        assert.match(
          await callError(conn, "install_application", { coords: "kv-store" }),
          /package@version/,
        );
        assert.match(
          await callError(conn, "install_application", { coords: "com.calimero.kv-store@" }),
          /package@version/,
        );
        assert.match(
          await callError(conn, "install_application", { coords: "com.calimero.kv-store@9.9.9" }),
          /no bundle/,
        );
        assert.match(await callError(conn, "install_application", {}), /exactly one/);
      });

      let blobId = "";
      await t.step("upload_blob → list_blobs → delete_blob", async () => {
        const uploaded = await callOk(conn, "upload_blob", { data: btoa("hello blob") });
        assert.equal(uploaded.size, 10);
        blobId = uploaded.blobId;
        const { blobs } = await callOk(conn, "list_blobs");
        assert.ok(blobs.some((b: { blobId: string; size: number }) => b.blobId === blobId));
        assert.deepEqual(await callOk(conn, "delete_blob", { blob: blobId }), {
          blobId,
          deleted: true,
        });
        const after = await callOk(conn, "list_blobs");
        assert.ok(!after.blobs.some((b: { blobId: string }) => b.blobId === blobId));
      });

      await t.step("upload_blob refuses more than 10 MiB before any upload", async () => {
        const before = sim.counts("PUT /admin-api/blobs");
        const big = new Uint8Array(10 * 1024 * 1024 + 1);
        const message = await callError(conn, "upload_blob", { data: encodeBase64(big) });
        assert.match(message, /10 MiB/);
        assert.equal(sim.counts("PUT /admin-api/blobs"), before);
        assert.match(await callError(conn, "upload_blob", { data: "not base64!" }), /base64/);
      });

      await t.step("delete_blob of an unknown blob is the node's error", async () => {
        await callError(conn, "delete_blob", { blob: blobId });
      });
    } finally {
      await conn.close();
      await sim.close();
    }
  });

  Deno.test(`[${era}] governance tools: groups, metadata, and the invitation round trip between two nodes`, async (t) => {
    const a = await startSimNode({ apps: ["kv-store"] });
    // The join is one step among many here: answered at once (a real node takes about 2 s).
    const b = await startSimNode({ apps: ["kv-store"], namespaceJoinMs: 0 });
    await using homeA = await tempHome({ CALIMERO_NODE_URL: a.url });
    await using homeB = await tempHome({ CALIMERO_NODE_URL: b.url });
    const connA = await connect({ era, env: homeA.env });
    const connB = await connect({ era, env: homeB.env });
    try {
      let namespaceId = "";
      let openGroup = "";
      let closedGroup = "";
      await t.step(
        "create_namespace, then create_group with visibility, and a subgroup",
        async () => {
          ({ namespaceId } = await callOk(connA, "create_namespace", { application: "kv-store" }));
          ({ groupId: openGroup } = await callOk(connA, "create_group", {
            namespace: namespaceId,
            name: "open",
            visibility: "open",
          }));
          assert.equal((await nodeGet(a, `/groups/${openGroup}`)).subgroupVisibility, "open");
          assert.equal(a.counts("PUT /admin-api/groups/"), 0, "born open: no second write");
          ({ groupId: closedGroup } = await callOk(connA, "create_group", {
            namespace: namespaceId,
            name: "sub",
            parent: openGroup,
          }));
          const sub = await nodeGet(a, `/groups/${closedGroup}`);
          assert.equal(sub.parentGroupId, openGroup);
          assert.equal(sub.subgroupVisibility, "restricted");
        },
      );

      await t.step(
        "create_group whose visibility step fails says the group exists and what to retry",
        async () => {
          // A subgroup takes two writes (POST /groups has no visibility); the second one fails here.
          a.setFault({ kind: "status", status: 500 }, {
            pathPrefix: "/admin-api/groups/",
            method: "PUT",
            times: 1,
          });
          const message = await callError(connA, "create_group", {
            namespace: namespaceId,
            parent: openGroup,
            visibility: "open",
          });
          assert.match(message, /was created/);
          assert.match(message, /set_group_visibility/);
        },
      );

      await t.step(
        "set_group_visibility and set_group_metadata change only what is given",
        async () => {
          assert.match(
            await callOk(connA, "set_group_visibility", { group: closedGroup, visibility: "open" }),
            /open/,
          );
          assert.equal((await nodeGet(a, `/groups/${closedGroup}`)).subgroupVisibility, "open");
          await callOk(connA, "set_group_visibility", {
            group: closedGroup,
            visibility: "restricted",
          });
          await callOk(connA, "set_group_metadata", { group: openGroup, data: { topic: "chat" } });
          await callOk(connA, "set_group_metadata", { group: openGroup, name: "Open room" });
          await callOk(connA, "set_group_metadata", { group: openGroup, data: { lang: "en" } });
          assert.deepEqual(await nodeGet(a, `/groups/${openGroup}/metadata`), {
            name: "Open room",
            data: { topic: "chat", lang: "en" },
          });
          assert.match(
            await callError(connA, "set_group_metadata", { group: openGroup }),
            /nothing/,
          );
        },
      );

      let invite = "";
      await t.step(
        "invite_to_namespace returns the signed invitation as the node signed it, valid as long as asked",
        async () => {
          const result = await callTool(connA, "invite_to_namespace", {
            namespace: namespaceId,
            valid_for_s: 3_600,
          });
          assert.ok(!result.isError, firstText(result));
          invite = firstText(result);
          const parsed = parseLossless(invite) as {
            invitation: { invitation: Record<string, unknown> };
          };
          // Seconds since the epoch, an hour on (core create_group_invitation.rs).
          const expiry = Number(parsed.invitation.invitation.expiration_timestamp);
          assert.ok(Math.abs(expiry - (Date.now() / 1000 + 3_600)) < 60, String(expiry));
          assert.deepEqual(Object.keys(parsed.invitation), [
            "invitation",
            "inviter_signature",
            "inviter_account",
            "application_id",
            "app_key",
          ]);
        },
      );

      let memberIdentity = "";
      await t.step("join_namespace on the other node with the invitation's JSON text", async () => {
        const { invitation } = parseLossless(invite) as { invitation: unknown };
        const joined = await callOk(connB, "join_namespace", {
          namespace: namespaceId,
          invitation: stringifyExact(invitation),
        });
        assert.equal(joined.namespaceId, namespaceId);
        memberIdentity = joined.memberIdentity;
        assert.equal(memberIdentity, b.identity.publicKey);
      });

      // The worker transport re-reads tool arguments losslessly, so an integer above 2^53 (the invitation's
      // nanosecond expiry) reaches the node with its exact digits.
      await t.step({
        name: "join_namespace with the invitation as an object, integers written exactly",
        fn: async () => {
          const { invitation } = parseLossless(invite) as { invitation: unknown };
          const joined = await callOk(connB, "join_namespace", {
            namespace: namespaceId,
            invitation: exactDigits(invitation),
          });
          assert.equal(joined.namespaceId, namespaceId);
        },
      });

      await t.step("join_namespace unwraps a whole invite result given as is", async () => {
        const joined = await callOk(connB, "join_namespace", {
          namespace: namespaceId,
          invitation: invite,
        });
        assert.equal(joined.namespaceId, namespaceId);
      });

      await t.step("a changed invitation is refused by the node", async () => {
        const tampered = invite.replace(/"invited_role":1/, '"invited_role":0');
        assert.notEqual(tampered, invite);
        assert.match(
          await callError(connB, "join_namespace", {
            namespace: namespaceId,
            invitation: tampered,
          }),
          /signature/,
        );
      });

      await t.step(
        "add_group_members with the joiner's memberIdentity; list_group_members shows it",
        async () => {
          type Member = { identity: string; role: string };
          const before =
            (await callOk(connA, "list_group_members", { group: closedGroup })).members;
          assert.deepEqual(before.map((m: Member) => m.role), ["Admin"]);
          const sentence = await callOk(connA, "add_group_members", {
            group: closedGroup,
            members: [{ identity: memberIdentity, role: "Member" }],
          });
          assert.match(sentence, new RegExp(`${memberIdentity} as Member`));
          const { members } = await callOk(connA, "list_group_members", { group: closedGroup });
          const added = members.filter((m: Member) => m.role === "Member");
          assert.equal(added.length, 1);
          assert.match(added[0].identity, /^[0-9a-f]{64}$/);
          assert.match(
            await callError(connA, "add_group_members", {
              group: closedGroup,
              members: [{ identity: memberIdentity, role: "Owner" }],
            }),
            /role/,
          );
        },
      );

      await t.step("join_open_group on the joined node inherits membership", async () => {
        const joined = await callOk(connB, "join_open_group", { group: openGroup });
        assert.deepEqual(joined, {
          groupId: openGroup,
          memberPublicKey: b.identity.publicKey,
          wasInherited: true,
        });
      });

      await t.step(
        "leave_namespace answers a sentence; delete_namespace the node's payload",
        async () => {
          assert.match(await callOk(connB, "leave_namespace", { namespace: namespaceId }), /left/);
          assert.deepEqual(await callOk(connA, "delete_namespace", { namespace: namespaceId }), {
            isDeleted: true,
          });
          const { namespaces } = await callOk(connA, "list_namespaces");
          assert.ok(
            !namespaces.some((ns: { namespaceId: string }) => ns.namespaceId === namespaceId),
          );
        },
      );

      await t.step("an unknown group is the node's error", async () => {
        const message = await callError(connA, "list_group_members", { group: "ab".repeat(32) });
        assert.match(message, /not found/i);
      });
    } finally {
      await connA.close();
      await connB.close();
      await a.close();
      await b.close();
    }
  });
}

function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

/** The value with each bigint as raw JSON digits, so the client sends it unrounded. */
function exactDigits(value: unknown): unknown {
  if (typeof value === "bigint") {
    return (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(value.toString());
  }
  if (Array.isArray(value)) return value.map(exactDigits);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exactDigits(v)]));
  }
  return value;
}
