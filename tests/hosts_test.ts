// Hosts that defer tools behind a search and cap what a tool returns (Claude Code: `anthropic/alwaysLoad`,
// `anthropic/maxResultSizeChars`, 25,000 tokens, errors cut near 11,000 characters): the entry tools stay loaded,
// find_methods finds any app's method, and every result fits — lists page, a big value is a link to a resource.

import assert from "assert";
import { callJson, callTool, connect, ERAS, firstText, isolatedEnv } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";
import { serverOn } from "./fixture.ts";
import { rpc } from "./sim_node/testing.ts";

/** The tools an agent needs to find its way: kept loaded by hosts that defer the rest. */
const ENTRY_TOOLS = [
  "node_status",
  "list_applications",
  "find_methods",
  "describe_app",
  "select_app",
  "call",
  "wait_for_events",
].sort();

type Listed = {
  name: string;
  outputSchema?: unknown;
  icons?: { src: string }[];
  _meta?: Record<string, unknown>;
};

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

for (const era of ERAS) {
  Deno.test(`[${era}] the entry tools are always loaded, generated tools are not, and results say how big they may be`, async () => {
    await using t = await serverOn({ era: era, sim: { apps: ["kv-store", "mero-issue-tracker"] } });
    const { conn } = t;
    const { tools } = await conn.client.listTools() as { tools: Listed[] };
    const loaded = tools.filter((t) => t._meta?.["anthropic/alwaysLoad"] === true);
    assert.deepEqual(loaded.map((t) => t.name).sort(), ENTRY_TOOLS);
    assert.ok(bytes(loaded) <= 15 * 1024, `always-loaded set: ${bytes(loaded)} bytes`);
    const generated = tools.filter((t) => t._meta?.["calimero/app"] !== undefined);
    assert.ok(generated.length > 10);
    for (const tool of generated) {
      assert.equal(tool._meta?.["anthropic/alwaysLoad"], undefined, tool.name);
      assert.equal(tool._meta?.["anthropic/maxResultSizeChars"], 72_000, tool.name);
      assert.equal(tool.outputSchema, undefined, `${tool.name}: its value travels once, as text`);
    }
    // Every fixed tool that answers JSON says its shape; the client checks each structured result against it.
    for (
      const name of [
        "select_app",
        "wait_for_events",
        "list_contexts",
        "node_status",
        "find_methods",
      ]
    ) {
      assert.ok(tools.find((t) => t.name === name)?.outputSchema, name);
    }
    const status = await callTool(conn, "node_status");
    assert.equal((status.structuredContent as { health: string }).health, "alive");
    const selected = await callTool(conn, "select_app", { app: "mero-issue-tracker" });
    const structured = selected.structuredContent as { app_handle: string; tools: string[] };
    assert.equal(structured.app_handle, JSON.parse(firstText(selected)).app_handle);
    assert.ok(structured.tools.includes("mero_issue_tracker_create_issue"));
  });
}

Deno.test("find_methods finds a method across apps by words, with its tool, or with `call` when tools are off", async () => {
  const sim = await startSimNode({ apps: ["kv-store", "mero-issue-tracker", "abi-coverage"] });
  try {
    const conn = await connect({
      era: "2026-07-28",
      env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
    });
    try {
      const found = await callJson(conn, "find_methods", { query: "create an issue" });
      assert.equal(found.matches[0].tool, "mero_issue_tracker_create_issue");
      assert.equal(found.matches[0].readOnly, false);
      assert.match(found.matches[0].signature, /^\[mut\] create_issue\(/);
      assert.match(found.next, /select_app/);
      const value = await callJson(conn, "find_methods", { query: "get value", app: "kv-store" });
      assert.ok(value.matches.length > 1);
      assert.ok(value.matches.every((m: { app: string }) => m.app === "com.calimero.kv-store"));
      assert.deepEqual(
        value.matches.slice(0, 2).map((m: { method: string }) => m.method).sort(),
        ["get", "get_or_insert"],
      );
      // An app that is not installed: the matches of the other words come with a note naming what is.
      const absent = await callJson(conn, "find_methods", { query: "todolist add item" });
      assert.match(absent.note, /No installed app or method matches "todolist"/);
      assert.match(absent.note, /Installed: .*com\.calimero\.kv-store/);
      assert.equal(found.note, undefined, "a query whose words all match has no note");
      const none = await callJson(conn, "find_methods", { query: "zebra giraffe" });
      assert.deepEqual(none.matches, []);
      assert.match(none.next, /Nothing matched/);
      // The server's own tools are found by words too (a host that defers tools hides them as well) …
      const own = await callJson(conn, "find_methods", { query: "remove a context alias" });
      assert.equal(own.tools[0].tool, "delete_alias", JSON.stringify(own.tools));
      assert.match(own.next, /server's own tools that match are under `tools`/);
      const rename = await callJson(conn, "find_methods", { query: "rename a context" });
      assert.equal(rename.tools[0].tool, "set_group_metadata", JSON.stringify(rename.tools));
      const peers = await callJson(conn, "find_methods", { query: "who are the peers" });
      assert.equal(peers.tools[0].tool, "node_status", JSON.stringify(peers.tools));
      // The words a person uses for the group tools find them, and the reversible one comes first.
      for (
        const [query, tool] of [
          ["list subgroups", "describe_group"],
          ["remove a context from its group", "detach_context"],
        ]
      ) {
        const hits = await callJson(conn, "find_methods", { query });
        assert.equal(hits.tools?.[0]?.tool, tool, `${query}: ${JSON.stringify(hits.tools)}`);
      }
      // … but an app query is not answered with every tool that shares a verb.
      assert.equal(found.tools, undefined, JSON.stringify(found.tools));
    } finally {
      await conn.close();
    }
    // A tool budget too small for per-method tools: the search still finds the method, and says to use `call`.
    const capped = await connect({
      era: "2025-11-25",
      env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
      args: ["--max-tools", "40"],
    });
    try {
      const found = await callJson(capped, "find_methods", { query: "create issue", limit: 3 });
      assert.equal(found.matches.length, 3);
      assert.equal(found.matches[0].method, "create_issue");
      assert.equal(found.matches[0].tool, null);
      assert.match(found.next, /`call`/);
    } finally {
      await capped.close();
    }
  } finally {
    await sim.close();
  }
});

for (const era of ERAS) {
  Deno.test(`[${era}] a value over the result budget comes as a head, a note and a link to the whole of it`, async () => {
    const sim = await startSimNode({ apps: ["kv-store"] });
    const { contextId } = sim.createContext(sim.appId("kv-store"));
    const big = "0123456789".repeat(20_000); // 200,000 characters
    const written = await rpc(sim, contextId, "set", { key: "big", value: big });
    assert.ok(written.result, JSON.stringify(written));
    const conn = await connect({
      era,
      env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url, CALIMERO_MCP_RESULT_CHARS: "20000" }),
    });
    try {
      const { app_handle } = await callJson(conn, "select_app", {
        app: "kv-store",
        context: contextId,
      });
      const result = await callTool(conn, "kv_store_get", { app_handle, key: "big" });
      assert.ok(!result.isError);
      assert.equal(result.structuredContent, undefined);
      const blocks = result.content as {
        type: string;
        text?: string;
        uri?: string;
        size?: number;
      }[];
      const texts = blocks.filter((b) => b.type === "text").map((b) => b.text!);
      assert.ok(texts.join("").length <= 20_000, `${texts.join("").length} characters`);
      assert.ok(JSON.stringify(big).startsWith(texts[0]), "the head of the value, as it starts");
      assert.match(texts[1], /200,002 characters, over the 20,000/);
      assert.match(texts.join("\n"), /data from the app com\.calimero\.kv-store/);
      const link = blocks.find((b) => b.type === "resource_link")!;
      assert.match(link.uri!, /^calimero:\/\/results\//);
      assert.equal(link.size, 200_002);
      const read = await conn.client.readResource({ uri: link.uri! });
      assert.equal(JSON.parse((read.contents[0] as { text: string }).text), big);
      // Read a few times, then gone (a 2026-07-28 client answers repeats from its cache, as the read's hint allows).
      await conn.client.readResource({ uri: link.uri! });
      await conn.client.readResource({ uri: link.uri! });
      if (era === "2025-11-25") {
        await assert.rejects(() => conn.client.readResource({ uri: link.uri! }));
      }
      // An error's text stays under the hosts' cut for errors.
      const failed = await callTool(conn, "call", { app_handle, method: "x".repeat(30_000) });
      assert.equal(failed.isError, true);
      assert.ok(firstText(failed).length < 10_000, `${firstText(failed).length}`);
    } finally {
      await conn.close();
      await sim.close();
    }
  });
}

Deno.test("a list tool pages: offset and limit, and a budget-sized page with the offset to go on from", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  const app = sim.appId("kv-store");
  for (let i = 0; i < 60; i++) {
    sim.createContext(app, { name: `context number ${i} `.padEnd(200, ".") });
  }
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url, CALIMERO_MCP_RESULT_CHARS: "10000" }),
  });
  try {
    const some = await callJson(conn, "list_contexts", { offset: 5, limit: 3 });
    assert.equal(some.contexts.length, 3);
    assert.equal(some.next_offset, 8);
    const seen = new Set<string>();
    let offset: number | undefined = 0;
    let pages = 0;
    while (offset !== undefined) {
      const result = await callTool(conn, "list_contexts", { offset });
      const page = result.structuredContent as { contexts: { id: string }[]; next_offset?: number };
      for (const c of page.contexts) seen.add(c.id);
      offset = page.next_offset;
      pages++;
    }
    assert.equal(seen.size, 60);
    assert.ok(pages > 3, `${pages} pages`);
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("an app's icon from its metadata reaches its tools and guide; one that does not pass is left out", async () => {
  const sim = await startSimNode({ apps: [] });
  const abi = (await import("./sim_node/apps/mod.ts")).SAMPLE_APPS["kv-store"].build({
    version: "1.0.0",
  });
  sim.install({
    ...abi,
    package: "com.example.iconic",
    icon: "https://apps.example.com/iconic.png",
    guide: "# Iconic\nUse set and get.",
  });
  sim.install({
    ...abi,
    package: "com.example.scripted",
    icon: "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+",
  });
  const conn = await connect({
    era: "2026-07-28",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    const { tools } = await conn.client.listTools() as { tools: Listed[] };
    const iconic = tools.filter((t) => t.name.startsWith("iconic_"));
    assert.ok(iconic.length > 0);
    for (const tool of iconic) {
      assert.deepEqual(tool.icons, [{ src: "https://apps.example.com/iconic.png" }]);
    }
    for (const tool of tools.filter((t) => t.name.startsWith("scripted_"))) {
      assert.equal(tool.icons, undefined, tool.name);
    }
    const { resources } = await conn.client.listResources();
    const guide = resources.find((r) => r.uri.includes("/guide"))!;
    assert.deepEqual((guide as { icons?: unknown }).icons, [{
      src: "https://apps.example.com/iconic.png",
    }]);
  } finally {
    await conn.close();
    await sim.close();
  }
});
