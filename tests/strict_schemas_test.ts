// OpenAI's strict mode wants every object of an input schema closed (`additionalProperties: false`); mero-mcp
// closes each one it would refuse unknown keys of anyway, and refuses them: a key a tool does not take is named in
// an error, never dropped without a word. The objects left open are maps and argument bags checked elsewhere.

import assert from "assert";
import { callTool, connect, ERAS, firstText, isolatedEnv } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";

type Json = Record<string, unknown>;

/** Every object schema with declared properties under `schema`, with its path. */
function objects(schema: unknown, path: string, out: [string, Json][] = []): [string, Json][] {
  if (Array.isArray(schema)) schema.forEach((s, i) => objects(s, `${path}[${i}]`, out));
  else if (schema !== null && typeof schema === "object") {
    const s = schema as Json;
    if (s.type === "object" && s.properties !== undefined) out.push([path, s]);
    for (const [key, value] of Object.entries(s)) objects(value, `${path}.${key}`, out);
  }
  return out;
}

Deno.test("every input object with properties is closed, and a key a tool does not take is refused by name", async () => {
  const sim = await startSimNode({ apps: ["kv-store", "mero-issue-tracker", "abi-coverage"] });
  const conn = await connect({
    era: ERAS[1],
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    const { tools } = await conn.client.listTools();
    const all = tools.flatMap((t) => objects(t.inputSchema, t.name));
    // Argument bags checked against the app's ABI (init's, a method's) and a signed invitation passed through as
    // issued: their keys are not the tool's to close.
    const BAGS = [
      "create_context.properties.args",
      "join_namespace.properties.invitation.anyOf[1]",
      "call.properties.args",
      "call_many.properties.calls.items.properties.args",
    ];
    const open = all.filter(([path, s]) => s.additionalProperties !== false && !BAGS.includes(path))
      .map(([path]) => path);
    assert.ok(all.length > 100, `only ${all.length} objects: the walk found too little`);
    assert.deepEqual(open, [], `open objects: ${open.join(", ")}`);

    const fixed = await callTool(conn, "node_status", { verbose: true });
    assert.equal(fixed.isError, true);
    assert.match(firstText(fixed), /verbose/);
    const { contextId } = sim.createContext(sim.appId("kv-store"));
    const handle = JSON.parse(
      firstText(await callTool(conn, "select_app", { app: "kv-store", context: contextId })),
    ).app_handle;
    const before = sim.requests.length;
    const generated = await callTool(conn, "kv_store_get", {
      app_handle: handle,
      key: "k",
      keys: ["x"],
    });
    assert.equal(generated.isError, true);
    assert.match(
      firstText(generated),
      /kv_store_get takes no "keys": its arguments are app_handle, context, and key/,
    );
    assert.equal(sim.requests.length, before, "nothing reached the node");
  } finally {
    await conn.close();
    await sim.close();
  }
});
