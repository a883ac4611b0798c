// Nothing reaches the node before the checks that may refuse it (hostile-input round 3, #1–2): a view's execute, like
// a write's, starts only once the app and its contexts as installed now have answered, and a call the checks refuse
// sends nothing at all. (Views once ran early, to save a round trip; another app's same-named method then ran.)

import assert from "assert";
import { connect, ERAS, firstText, isolatedEnv } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";
import { serverOn } from "./fixture.ts";

const CHECK_DELAY_MS = 400;

for (const era of ERAS) {
  Deno.test(`[${era}] a view and a write alike execute only after their checks answered`, async () => {
    const sim = await startSimNode();
    const kv = sim.appId("kv-store");
    sim.createContext(kv, { alias: "demo" });
    const conn = await connect({ era, env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }) });
    try {
      const selected = JSON.parse(firstText(
        await conn.client.callTool({
          name: "select_app",
          arguments: { app: "kv-store", context: "demo" },
        }),
      ));
      const handle = selected.app_handle as string;
      await conn.client.callTool({
        name: "kv_store_set",
        arguments: { app_handle: handle, key: "k", value: "v" },
      });

      // Only the app check is slow: the execute's start shows whether it waited for it.
      const gap = async (name: string, args: Record<string, unknown>) => {
        sim.resetLog();
        await sim.setFault({ kind: "slow", delayMs: CHECK_DELAY_MS }, {
          pathPrefix: `/admin-api/applications/${kv}`,
          method: "GET",
        });
        const result = await conn.client.callTool({
          name,
          arguments: { app_handle: handle, ...args },
        });
        await sim.setFault(null);
        assert.ok(!result.isError, firstText(result));
        const check = sim.requests.find((r) => r.path === `/admin-api/applications/${kv}`)!;
        const execute = sim.requests.find((r) => r.path === "/jsonrpc")!;
        assert.ok(check && execute, "both requests reached the node");
        return { ms: execute.at - check.at, text: firstText(result) };
      };

      const view = await gap("kv_store_get", { key: "k" });
      assert.equal(view.text, '"v"');
      assert.ok(
        view.ms >= CHECK_DELAY_MS - 20,
        `the view's execute started only after the check answered (${view.ms} ms)`,
      );

      const write = await gap("kv_store_set", { key: "k", value: "w" });
      assert.ok(
        write.ms >= CHECK_DELAY_MS - 20,
        `the mutating execute started only after the check answered (${write.ms} ms)`,
      );
    } finally {
      await conn.close();
      await sim.close();
    }
  });

  Deno.test(`[${era}] a call the checks refuse sends nothing: upgraded app, context gone`, async () => {
    await using t = await serverOn({ era: era, sim: {} });
    const { sim, conn } = t;
    const kv = sim.appId("kv-store");
    sim.createContext(kv, { alias: "demo" });
    const other = sim.createContext(kv, { alias: "other" });
    const select = async (context: string) =>
      JSON.parse(firstText(
        await conn.client.callTool({ name: "select_app", arguments: { app: "kv-store", context } }),
      )).app_handle as string;
    const handle = await select("demo");
    await conn.client.callTool({
      name: "kv_store_set",
      arguments: { app_handle: handle, key: "k", value: "secret-v1" },
    });
    sim.upgrade(kv, { version: "2.0.0" });
    sim.resetLog();
    const stale = await conn.client.callTool({
      name: "kv_store_get",
      arguments: { app_handle: handle, key: "k" },
    });
    assert.equal(stale.isError, true, "an upgrade makes the handle stale");
    assert.match(firstText(stale), /stale|upgraded/);
    assert.doesNotMatch(firstText(stale), /secret-v1/);
    assert.equal(sim.counts("/jsonrpc"), 0, "no execute reached the node");

    const otherHandle = await select("other");
    sim.state.contexts.delete(other.contextId);
    sim.resetLog();
    const gone = await conn.client.callTool({
      name: "kv_store_get",
      arguments: { app_handle: otherHandle, key: "k" },
    });
    assert.equal(
      gone.isError,
      true,
      "a context that is gone is refused, whatever the early execute said",
    );
    assert.match(firstText(gone), /not a context/);
    assert.equal(sim.counts("/jsonrpc"), 0, "no execute reached the node");
  });
}
