// One name for one thing: `app` (app tools) and `application` (fixed tools) are each understood where the other is
// meant, with a note; and create_context infers the group when the app has exactly one namespace here.

import assert from "assert";
import { callTool, connect, ERAS, firstText, isolatedEnv } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";

Deno.test("`app` in a fixed tool and `application` in an app tool are taken with a note; create_context finds the app's one namespace", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  const conn = await connect({
    era: ERAS[1],
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    const kv = sim.appId("kv-store");
    const noNamespace = await callTool(conn, "create_context", { app: "kv-store" });
    assert.equal(noNamespace.isError, true);
    assert.match(
      firstText(noNamespace),
      /has no namespace on this node yet, and a context lives in one: call create_namespace \{"application": "com\.calimero\.kv-store"\} first/,
    );
    const ns = sim.createNamespace(kv, "only");
    const created = await callTool(conn, "create_context", { app: "kv-store" });
    assert.ok(!created.isError, firstText(created));
    const body = JSON.parse(firstText(created));
    assert.match(
      body.note,
      new RegExp(`Created in namespace ${ns}, the app's only one on this node`),
    );
    const texts = (created.content as { type: string; text: string }[]).map((c) => c.text);
    assert.ok(
      texts.some((t) => /this tool calls it `application`; `app` was taken as that/.test(t)),
      texts.join("|"),
    );
    const selected = await callTool(conn, "select_app", {
      application: "kv-store",
      context: body.contextId,
    });
    assert.ok(!selected.isError, firstText(selected));
    assert.match(
      JSON.stringify(selected.content),
      /this tool calls it `app`; `application` was taken as that/,
    );
    sim.createNamespace(kv, "second");
    const two = await callTool(conn, "create_context", { application: "kv-store" });
    assert.equal(two.isError, true);
    assert.match(firstText(two), /has 2 namespaces on this node .*list_namespaces/);
  } finally {
    await conn.close();
    await sim.close();
  }
});
