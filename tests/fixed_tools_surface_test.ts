// The fixed tools as a client lists them: the annotations each should carry, the toolset switch, and the byte budget
// of the list (every byte is paid in the agent's context on every turn).

import assert from "assert";
import { connect, ERAS, firstText, tempHome } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";
import { FIXED_TOOL_NAMES } from "../src/apps/names.ts";

/** Each fixed tool: group, and read-only (ro) / destructive (de) / neither (-). */
const TABLE: Record<string, ["core" | "blobs" | "governance", "ro" | "de" | "-"]> = {
  node_status: ["core", "ro"],
  list_nodes: ["core", "ro"],
  create_client_key: ["core", "-"],
  list_applications: ["core", "ro"],
  list_namespaces: ["core", "ro"],
  list_contexts: ["core", "ro"],
  create_context: ["core", "-"],
  join_context: ["core", "-"],
  leave_context: ["core", "de"],
  list_context_identities: ["core", "ro"],
  sync_context: ["core", "-"],
  delete_context: ["core", "de"],
  resync_context: ["core", "de"],
  update_context_application: ["core", "de"],
  create_alias: ["core", "-"],
  list_aliases: ["core", "ro"],
  delete_alias: ["core", "-"],
  lookup_alias: ["core", "ro"],
  install_application: ["blobs", "-"],
  uninstall_application: ["blobs", "de"],
  upload_blob: ["blobs", "-"],
  list_blobs: ["blobs", "ro"],
  delete_blob: ["blobs", "de"],
  create_namespace: ["governance", "-"],
  delete_namespace: ["governance", "de"],
  invite_to_namespace: ["governance", "-"],
  join_namespace: ["governance", "-"],
  leave_namespace: ["governance", "de"],
  list_group_members: ["governance", "ro"],
  add_group_members: ["governance", "-"],
  remove_group_members: ["governance", "de"],
  set_member_role: ["governance", "de"],
  set_member_capabilities: ["governance", "-"],
  create_group: ["governance", "-"],
  set_group_visibility: ["governance", "-"],
  set_group_metadata: ["governance", "-"],
  set_default_capabilities: ["governance", "-"],
  set_auto_follow: ["governance", "-"],
  join_open_group: ["governance", "-"],
  describe_group: ["governance", "ro"],
  sync_group: ["governance", "-"],
  upgrade_group: ["governance", "de"],
  group_upgrade_status: ["governance", "ro"],
  delete_group: ["governance", "de"],
  leave_group: ["governance", "de"],
  detach_context: ["governance", "de"],
};

/**
 * What the model is given of the fixed tools (name, description, inputSchema: what hosts put in its context): at
 * most 450 bytes a tool on average (issue 31: the surface grows by tools, each must stay light); the always-loaded
 * set, in full, at most 6 KB (what a host that defers tools keeps in context). The whole list also carries output
 * schemas, annotations and `_meta`, which hosts keep for themselves; it is held under a ceiling so that it does not
 * grow unnoticed.
 */
const MODEL_BYTES_PER_TOOL = 450;
const ALWAYS_LOADED_BYTES = 6_000;
const WHOLE_LIST_BYTES_PER_TOOL = 700;

type Listed = {
  name: string;
  description?: string;
  annotations?: Record<string, unknown>;
  inputSchema: Record<string, unknown>;
};

for (const era of ERAS) {
  Deno.test(`[${era}] every fixed tool is listed with its intended annotations, within the byte budget`, async () => {
    const sim = await startSimNode({ apps: [] });
    await using temp = await tempHome({ CALIMERO_NODE_URL: sim.url });
    const conn = await connect({
      era,
      env: temp.env,
    });
    try {
      const { tools } = await conn.client.listTools(undefined, { cacheMode: "refresh" });
      const listed = new Map((tools as Listed[]).map((t) => [t.name, t]));
      for (const [name, [, kind]] of Object.entries(TABLE)) {
        const tool = listed.get(name);
        assert.ok(tool, `${name} is listed`);
        assert.deepEqual(tool.annotations, {
          readOnlyHint: kind === "ro",
          destructiveHint: kind === "de",
          idempotentHint: kind === "ro" || name.startsWith("set_") ||
            ["sync_context", "delete_alias", "sync_group"].includes(name),
          openWorldHint: name === "install_application",
        }, name);
        const description = tool.description ?? "";
        assert.ok(description.length > 0 && description.length <= 1024, name);
        assert.equal(tool.inputSchema.type, "object", name);
        for (const key of ["oneOf", "anyOf", "allOf"]) assert.ok(!(key in tool.inputSchema));
        const properties = tool.inputSchema.properties as Record<string, { description?: string }>;
        for (const [param, schema] of Object.entries(properties)) {
          assert.ok(schema.description, `${name}.${param} has a description`);
        }
      }
      for (const name of FIXED_TOOL_NAMES) assert.ok(listed.has(name), `${name} is listed`);
      assert.equal(tools.length, FIXED_TOOL_NAMES.length, "no app installed: only fixed tools");
      const size = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;
      const seen = size(
        tools.map((t) => ({
          name: t.name,
          description: t.description,
          inputSchema: t.inputSchema,
        })),
      );
      assert.ok(
        seen <= MODEL_BYTES_PER_TOOL * tools.length,
        `model-visible: ${seen} bytes for ${tools.length} tools`,
      );
      const loaded = tools.filter((t) =>
        (t as { _meta?: Record<string, unknown> })._meta?.["anthropic/alwaysLoad"] === true
      );
      assert.ok(size(loaded) <= ALWAYS_LOADED_BYTES, `always loaded: ${size(loaded)} bytes`);
      assert.ok(
        size({ tools }) <= WHOLE_LIST_BYTES_PER_TOOL * tools.length,
        `tools/list is ${size({ tools })} bytes`,
      );
    } finally {
      await conn.close();
      await sim.close();
    }
  });

  Deno.test(`[${era}] --toolsets core leaves the blobs and governance tools unlisted and uncallable`, async () => {
    const sim = await startSimNode({ apps: [] });
    await using temp = await tempHome({ CALIMERO_NODE_URL: sim.url });
    const conn = await connect({
      era,
      env: temp.env,
      args: ["--toolsets", "core"],
    });
    try {
      const { tools } = await conn.client.listTools(undefined, { cacheMode: "refresh" });
      const names = new Set(tools.map((t) => t.name));
      for (const [name, [group]] of Object.entries(TABLE)) {
        assert.equal(names.has(name), group === "core", name);
      }
      for (
        const name of [
          "describe_app",
          "select_app",
          "call",
          "call_many",
          "wait_for_events",
        ]
      ) {
        assert.ok(names.has(name), `${name} stays on`);
      }
      for (const name of ["upload_blob", "create_namespace"]) {
        const result = await conn.client.callTool({ name, arguments: { data: "aGk=" } });
        assert.equal(result.isError, true, name);
        assert.match(firstText(result), /no tool/i);
      }
      assert.equal(sim.counts("PUT /admin-api/blobs"), 0);
      assert.equal(sim.counts("POST /admin-api/namespaces"), 0);
    } finally {
      await conn.close();
      await sim.close();
    }
  });
}
