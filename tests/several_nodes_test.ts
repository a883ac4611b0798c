// Several nodes from one server, end to end: one process, one connection, two simulated nodes — the server's own and
// one named in CALIMERO_NODES — and a network task done through the tools alone: a context on node 1, an invitation,
// node 2 joins and syncs, a write on node 1 read on node 2, and node 2 waiting for node 1's next write. What a person
// who named a second node sees: every listed tool takes `node`, handles stay with the node that issued them, a
// question names the node, and read-only mode holds there too. tests/real_nodes_test.ts runs the same task on two
// real merods.

import assert from "assert";
import {
  askingClient,
  callJson,
  callText,
  callTool,
  connect,
  ERAS,
  firstText,
  isolatedEnv,
} from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";

for (const era of ERAS) {
  Deno.test(`[${era}] one server, two nodes: invite, join, sync, write on one, read and wait on the other`, async () => {
    const one = await startSimNode({ apps: ["kv-store"] });
    // The join is part of the task: node 2 keeps the real node's join time.
    const two = await startSimNode({ apps: ["kv-store"], seed: "node-two" });
    const conn = await connect({
      era,
      env: await isolatedEnv({ CALIMERO_NODE_URL: one.url, CALIMERO_NODES: `two=${two.url}` }),
    });
    try {
      const { tools } = await conn.client.listTools();
      const fixed = tools.filter((t) => !t.name.startsWith("kv_store_"));
      for (const tool of fixed) {
        const node = (tool.inputSchema.properties as Record<string, { enum?: string[] }>).node;
        assert.deepEqual(node?.enum, ["default", "two"], `${tool.name} takes node`);
      }
      // Generated tools stay the server's own node's: the list does not grow with the nodes.
      assert.ok(tools.some((t) => t.name === "kv_store_get"));
      assert.equal(tools.filter((t) => t.name === "kv_store_get").length, 1);

      const listed = await callJson(conn, "list_nodes");
      assert.ok(
        (listed.nodes as { name: string | null; url: string }[]).some((n) =>
          n.name === "two" && n.url === two.url
        ),
      );
      const status = await callJson(conn, "node_status", { node: "two" });
      assert.equal(status.url, two.url);

      // Node 1: a namespace and a context; an invitation to the namespace.
      const { namespaceId } = await callJson(conn, "create_namespace", { application: "kv-store" });
      const created = await callJson(conn, "create_context", {
        application: "kv-store",
        group: namespaceId,
      });
      const contextId = created.contextId as string;
      await callText(conn, "create_alias", { alias: "shared", context: contextId });
      const invitation = await callText(conn, "invite_to_namespace", { namespace: namespaceId });

      // Node 2: join, then sync until the state is there.
      await callJson(conn, "join_namespace", { node: "two", namespace: namespaceId, invitation });
      let initialized = false;
      for (let i = 0; i < 60 && !initialized; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 100));
        initialized = (await callJson(conn, "sync_context", { node: "two", context: contextId }))
          .isInitialized;
      }
      assert.ok(initialized, "node 2 has the context's state");

      // A write on node 1 (its generated tool), read on node 2 (call, with node 2's handle).
      const mine = await callJson(conn, "select_app", { app: "kv-store", context: "shared" });
      await callText(conn, "kv_store_set", { app_handle: mine.app_handle, key: "k", value: "v1" });
      const theirs = await callJson(conn, "select_app", {
        node: "two",
        app: "kv-store",
        context: contextId,
      });
      assert.match(String(theirs.toolsNote), /server's own node's/);
      let read = "";
      for (let i = 0; i < 50 && read !== "v1"; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 100));
        const got = await callTool(conn, "call", {
          app_handle: theirs.app_handle, // no node: the handle says which
          method: "get",
          args: { key: "k" },
        });
        read = got.isError ? "" : JSON.parse(firstText(got));
      }
      assert.equal(read, "v1", "node 2 reads node 1's write");

      // call_many goes where its items' handles were issued.
      const batch = await callJson(conn, "call_many", {
        calls: [{ app_handle: theirs.app_handle, method: "get", args: { key: "k" } }],
      });
      assert.match(JSON.stringify(batch), /v1/);

      // A script on node 2 reaches its apps by name, as on the server's own node.
      const script = await callJson(conn, "run_script", {
        node: "two",
        code: `return await calimero.kv_store.get({ key: "k" }, { context: "${contextId}" });`,
      });
      assert.equal(script.value, "v1", JSON.stringify(script));

      // A handle of node 2 is not node 1's: named with node 1, it is refused, saying where it belongs.
      const wrong = await callTool(conn, "call", {
        node: "default",
        app_handle: theirs.app_handle,
        method: "get",
        args: { key: "k" },
      });
      assert.equal(wrong.isError, true);
      assert.match(firstText(wrong), /issued on node "two", not "default"/);

      // Node 2 waits for node 1's next write.
      const start = await callJson(conn, "wait_for_events", {
        node: "two",
        context: contextId,
        timeout_s: 0,
      });
      const waiting = callJson(conn, "wait_for_events", {
        node: "two",
        context: contextId,
        after: start.cursor,
        timeout_s: 10,
      });
      await new Promise((r) => setTimeout(r, 200));
      await callText(conn, "kv_store_set", { app_handle: mine.app_handle, key: "k", value: "v2" });
      const woke = await waiting;
      assert.ok(
        (woke.events as { name?: string; payload?: { value?: string } }[]).some((e) =>
          e.payload?.value === "v2"
        ),
        JSON.stringify(woke),
      );

      // An unknown node is refused, naming the ones there are.
      const unknown = await callTool(conn, "node_status", { node: "three" });
      assert.equal(unknown.isError, true);
      assert.match(firstText(unknown), /"default", "two"/);
    } finally {
      await conn.close();
      await Promise.all([one.close(), two.close()]);
    }
  });
}

Deno.test("several nodes: a question names the node; read-only mode holds on every node", async () => {
  const one = await startSimNode({ apps: ["kv-store"] });
  const two = await startSimNode({ apps: ["kv-store"], seed: "node-two" });
  const { contextId } = two.createContext(two.appId("kv-store"), { alias: "there" });
  const { client, asked } = await askingClient(
    "2025-11-25",
    await isolatedEnv({ CALIMERO_NODE_URL: one.url, CALIMERO_NODES: `two=${two.url}` }),
    () => ({ action: "decline" }),
  );
  const readOnly = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({
      CALIMERO_NODE_URL: one.url,
      CALIMERO_NODES: `two=${two.url}`,
      CALIMERO_MCP_READ_ONLY: "1",
    }),
  });
  try {
    const declined = await client.callTool({
      name: "delete_context",
      arguments: { node: "two", context: contextId },
    });
    assert.match(asked[0] ?? "", /^On node "two": Delete context/);
    assert.match(firstText(declined), /declined/);
    assert.ok(two.state.contexts.has(contextId), "nothing was sent");

    const { tools } = await readOnly.client.listTools();
    assert.ok(!tools.some((t) => t.name === "delete_context"));
    const refused = await callTool(readOnly, "call", {
      node: "two",
      app: "kv-store",
      context: contextId,
      method: "set",
      args: { key: "k", value: "v" },
    });
    assert.equal(refused.isError, true);
    assert.match(firstText(refused), /read-only/i);
  } finally {
    await client.close();
    await readOnly.close();
    await Promise.all([one.close(), two.close()]);
  }
});
