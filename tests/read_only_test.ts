// Read-only mode (`--read-only`): the annotations are the one statement of what a tool does. Only tools annotated
// read-only are listed (fixed and generated), `call`/`call_many` refuse a method that writes before anything reaches
// the node, and every listed tool, called, leaves the node as it was.

import assert from "assert";
import {
  callJson,
  callTool,
  connect,
  type Connection,
  ERAS,
  firstText,
  isolatedEnv,
} from "./harness.ts";
import { type SimNode, startSimNode } from "./sim_node/mod.ts";

/** The node's state, in a form two moments can be compared by. */
function snapshot(sim: SimNode): string {
  const plain = (_key: string, value: unknown) =>
    value instanceof Map ? [...value.entries()] : value instanceof Set ? [...value] : value;
  return JSON.stringify({
    apps: [...sim.state.apps.keys()].sort(),
    blobs: [...sim.state.blobs.keys()].sort(),
    contexts: [...sim.state.contexts.keys()].sort().map((id) => [id, sim.contextState(id)]),
    aliases: [...sim.state.aliases.entries()].sort(),
    namespaces: [...sim.state.namespaces].sort(),
  }, plain);
}

/** Arguments a tool accepts, from its input schema: the node's real ids where a name says what is meant. */
function argsFor(
  schema: { properties?: Record<string, { type?: string }>; required?: string[] },
  known: Record<string, unknown>,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    if (name in known) args[name] = known[name];
    else {
      const type = schema.properties?.[name]?.type;
      args[name] = type === "number" || type === "integer"
        ? 0
        : type === "boolean"
        ? false
        : type === "array"
        ? []
        : type === "object"
        ? {}
        : "x";
    }
  }
  for (const name of ["app_handle", "timeout_s"]) {
    if (schema.properties?.[name] && name in known) args[name] = known[name];
  }
  return args;
}

async function readOnlyServer(
  era: typeof ERAS[number],
): Promise<{ sim: SimNode; conn: Connection }> {
  const sim = await startSimNode({ apps: ["kv-store", "mero-issue-tracker"] });
  const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
  const conn = await connect({ era, env, args: ["--read-only"] });
  return { sim, conn };
}

for (const era of ERAS) {
  Deno.test(`[${era}] --read-only lists only tools that read, says so, and refuses a write before it reaches the node`, async () => {
    const { sim, conn } = await readOnlyServer(era);
    try {
      const { contextId } = sim.createContext(sim.appId("kv-store"), { alias: "ro" });
      const { tools } = await conn.client.listTools(undefined, { cacheMode: "refresh" });
      const names = tools.map((t) => t.name);
      for (const tool of tools) assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
      for (
        const kept of [
          "node_status",
          "describe_app",
          "select_app",
          "call",
          "call_many",
          "wait_for_events",
          "sync_context",
          "kv_store_get",
        ]
      ) {
        assert.ok(names.includes(kept), `${kept} is listed`);
      }
      for (
        const hidden of [
          "delete_context",
          "install_application",
          "create_context",
          "kv_store_set",
          "kv_store_clear",
        ]
      ) {
        assert.ok(!names.includes(hidden), `${hidden} is not listed`);
      }
      assert.match(conn.client.getInstructions() ?? "", /read-only/);
      // A hidden tool called by name: the mode hides it, not an uninstall.
      const hiddenFixed = await callTool(conn, "delete_context", { context: contextId });
      assert.equal(hiddenFixed.isError, true);
      assert.match(
        firstText(hiddenFixed),
        /"delete_context" writes, and read-only mode .* hides every tool that writes/,
      );
      assert.doesNotMatch(firstText(hiddenFixed), /uninstalled/);
      const hiddenMethod = await callTool(conn, "kv_store_set", { key: "k", value: "v" });
      assert.match(
        firstText(hiddenMethod),
        /in read-only mode: the mode .* hides every app method that writes/,
      );

      const { app_handle } = await callJson(conn, "select_app", {
        app: "kv-store",
        context: contextId,
      });
      const before = sim.requests.length;
      const write = await callTool(conn, "call", {
        app_handle,
        method: "set",
        args: { key: "k", value: "v" },
      });
      assert.equal(write.isError, true);
      assert.match(firstText(write), /read-only.*"set" writes, so it was not sent to the node/);
      assert.equal(sim.requests.length, before, "nothing reached the node");
      const batch = await callJson(conn, "call_many", {
        calls: [{ app_handle, method: "set", args: { key: "k", value: "v" } }, {
          app_handle,
          method: "len",
        }],
      });
      assert.equal(batch.results[0].ok, false);
      assert.equal(batch.results[1].ok, true, "a read in the same batch runs");
      assert.equal(sim.contextState(contextId) !== undefined, true);
    } finally {
      await conn.close();
      await sim.close();
    }
  });
}

Deno.test("every tool listed in read-only mode, called, leaves the node as it was (its annotation tells the truth)", async () => {
  const { sim, conn } = await readOnlyServer("2025-11-25");
  try {
    const kv = sim.appId("kv-store");
    const namespace = sim.createNamespace(kv, "ro");
    const { contextId } = sim.createContext(kv, { groupId: namespace, alias: "ro" });
    await callTool(conn, "node_status", {});
    const { app_handle } = await callJson(conn, "select_app", {
      app: "kv-store",
      context: contextId,
    });
    const known: Record<string, unknown> = {
      app: "kv-store",
      application: "kv-store",
      context: contextId,
      contextId,
      app_handle,
      namespace,
      group: namespace,
      name: "ro",
      key: "k",
      method: "get",
      calls: [{ app_handle, method: "len" }],
      timeout_s: 0,
    };
    const { tools } = await conn.client.listTools(undefined, { cacheMode: "refresh" });
    const state = snapshot(sim);
    sim.resetLog();
    for (const tool of tools) {
      await callTool(conn, tool.name, argsFor(tool.inputSchema as never, known));
    }
    assert.equal(snapshot(sim), state, "no listed tool changed the node");
    // Reads the node takes by POST (core): views, event subscriptions, alias lookups.
    const reads =
      /^(GET |POST \/jsonrpc$|POST \/sse\/subscription$|POST \/admin-api\/alias\/lookup\/)/;
    const writes = sim.requests.map((r) => `${r.method} ${r.path}`).filter((r) => !reads.test(r));
    assert.deepEqual(writes, [], "no request that writes");
    assert.ok(tools.length >= 15, `${tools.length} tools were called`);
  } finally {
    await conn.close();
    await sim.close();
  }
});
