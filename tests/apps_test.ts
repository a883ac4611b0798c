// Apps as tools, end to end: the real process, the official client in both eras, the simulated node.

import assert from "assert";
import {
  callJson,
  type CallResult,
  callText,
  connect,
  ERAS,
  firstText,
  isolatedEnv,
  until,
} from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";
import { serverOn } from "./fixture.ts";

/** Resolves when `predicate` holds for a value passed to the returned callback, or rejects after `ms`. */
function waitFor<T>(ms: number) {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r, reject) => {
    resolve = r;
    setTimeout(() => reject(new Error(`nothing arrived within ${ms} ms`)), ms);
  });
  return { promise, resolve };
}

for (const era of ERAS) {
  Deno.test(`[${era}] select_app, then generated tools set and get a value; refusals and guest errors read well`, async () => {
    await using t = await serverOn({ era: era, sim: {} });
    const { sim, conn } = t;
    const kv = sim.appId("kv-store");
    sim.createContext(kv, { alias: "demo" });
    const { tools } = await conn.client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ["kv_store_set", "kv_store_get", "select_app", "call", "node_status"]) {
      assert.ok(names.includes(name), `${name} is listed`);
    }
    assert.ok(!names.includes("kv_store_init"), "init is never a tool");
    const selected = await callJson(conn, "select_app", { app: "kv-store", context: "demo" });
    assert.ok(selected.tools.includes("kv_store_get"));
    const handle = selected.app_handle as string;

    const set = await conn.client.callTool({
      name: "kv_store_set",
      arguments: { app_handle: handle, key: "colour", value: "teal" },
    });
    assert.ok(!set.isError, firstText(set));
    const get = await conn.client.callTool({
      name: "kv_store_get",
      arguments: { app_handle: handle, key: "colour" },
    });
    assert.equal(firstText(get), '"teal"');
    // The value travels once, as text: hosts that see structuredContent show the model only that.
    assert.equal(get.structuredContent, undefined);

    const viaCall = await conn.client.callTool({
      name: "call",
      arguments: { app: "kv-store", context: "demo", method: "get", args: { key: "colour" } },
    });
    assert.equal(firstText(viaCall), '"teal"', "call converts exactly like the generated tool");

    const refused = await conn.client.callTool({
      name: "kv_store_get",
      arguments: { key: "colour" },
    });
    assert.equal(refused.isError, true);
    assert.match(firstText(refused), /select_app/);

    const badArgs = await conn.client.callTool({
      name: "kv_store_set",
      arguments: { app_handle: handle, key: 7 },
    });
    assert.equal(badArgs.isError, true);
    assert.match(firstText(badArgs), /key/);
    assert.match(firstText(badArgs), /value/);
    assert.match(firstText(badArgs), /set\(key: string, value: string\)/, "shows the signature");

    const guest = await conn.client.callTool({
      name: "kv_store_get_result",
      arguments: { app_handle: handle, key: "missing" },
    });
    assert.equal(guest.isError, true);
    assert.ok(!firstText(guest).includes("[34"), `decoded guest error: ${firstText(guest)}`);
    assert.equal(guest.structuredContent, undefined, "no structuredContent on failure");

    const gone = await conn.client.callTool({ name: "kv_store_no_such_method", arguments: {} });
    assert.equal(gone.isError, true, "an unknown tool is a tool error");
  });

  Deno.test(`[${era}] node down at connect: fixed tools only, then the app tools arrive with one notification`, async () => {
    const probe = await startSimNode({ apps: [] });
    const port = probe.port;
    await probe.close();
    const changes: string[][] = [];
    const arrived = waitFor<void>(10_000);
    const conn = await connect({
      era,
      env: await isolatedEnv({ CALIMERO_NODE_URL: `http://127.0.0.1:${port}` }),
      onToolsChanged: (tools) => {
        changes.push(tools.map((t) => t.name));
        if (tools.some((t) => t.name === "kv_store_get")) arrived.resolve();
      },
    });
    let sim;
    try {
      const before = await conn.client.listTools();
      assert.ok(!before.tools.some((t) => t.name.startsWith("kv_store_")), "no app tools yet");
      const down = await conn.client.callTool({ name: "node_status", arguments: {} });
      assert.match(firstText(down), /cannot reach the node/);
      sim = await startSimNode({ port, apps: ["kv-store"] });
      const up = await conn.client.callTool({ name: "node_status", arguments: {} });
      assert.ok(!up.isError, firstText(up));
      await arrived.promise;
      assert.equal(changes.length, 1, "exactly one tools/list_changed");
    } finally {
      await conn.close();
      await sim?.close();
    }
  });
}

Deno.test("install adds tools, an upgrade makes old handles stale and uses the new schema, uninstall removes them", async () => {
  const sim = await startSimNode({ apps: ["abi-coverage"] });
  // The 2025 era: no client-side list cache, so each listTools shows the server's list at that moment.
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    assert.ok(!(await conn.client.listTools()).tools.some((t) => t.name.startsWith("kv_store_")));
    const installed = await callJson(conn, "install_application", {
      url: "https://example.invalid/apps/kv-store-1.0.0.mpk",
    });
    const appId = installed.applicationId as string;
    assert.ok((await conn.client.listTools()).tools.some((t) => t.name === "kv_store_get"));
    sim.createContext(appId, { alias: "main" });
    const handle = (await callJson(conn, "select_app", { app: "kv-store", context: "main" }))
      .app_handle;
    await callText(conn, "kv_store_set", { app_handle: handle, key: "k", value: "v" });

    sim.upgrade(appId, {
      version: "2.0.0",
      abi: {
        schema_version: "wasm-abi/1",
        types: {},
        methods: [
          {
            name: "get",
            params: [{ name: "key", type: { kind: "string" } }, {
              name: "fallback",
              type: { kind: "string" },
            }],
            returns: { kind: "string" },
            intent: "read_only",
          },
        ],
        events: [],
      },
      methods: { get: (args) => `v2:${args.key}:${args.fallback}` },
    });
    const stale = await conn.client.callTool({
      name: "kv_store_get",
      arguments: { app_handle: handle, key: "k" },
    });
    assert.equal(stale.isError, true, "an upgrade makes old handles stale at once");
    assert.match(firstText(stale), /stale|upgraded/);
    const fresh = (await callJson(conn, "select_app", { app: "kv-store", context: "main" }))
      .app_handle;
    const missing = await conn.client.callTool({
      name: "kv_store_get",
      arguments: { app_handle: fresh, key: "k" },
    });
    assert.equal(missing.isError, true, "the new schema requires fallback");
    assert.match(firstText(missing), /fallback/);
    const ok = await conn.client.callTool({
      name: "kv_store_get",
      arguments: { app_handle: fresh, key: "k", fallback: "x" },
    });
    assert.equal(firstText(ok), '"v2:k:x"');
    const { tools } = await conn.client.listTools();
    assert.ok(!tools.some((t) => t.name === "kv_store_set"), "methods gone in v2 are gone");

    await callText(conn, "uninstall_application", { application: "kv-store" });
    assert.ok(!(await conn.client.listTools()).tools.some((t) => t.name.startsWith("kv_store_")));
    const after: CallResult = await conn.client.callTool({
      name: "call",
      arguments: { app_handle: fresh, method: "get", args: { key: "k", fallback: "x" } },
    });
    assert.equal(after.isError, true, "calls refuse after uninstall");
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("handles survive a restart; deleting handle.key rotates the key and refuses old handles", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  sim.createContext(sim.appId("kv-store"), { alias: "demo" });
  const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
  try {
    let conn = await connect({ era: "2025-11-25", env });
    const handle = (await callJson(conn, "select_app", { app: "kv-store", context: "demo" }))
      .app_handle;
    await conn.close();

    conn = await connect({ era: "2025-11-25", env });
    await callText(conn, "kv_store_set", { app_handle: handle, key: "a", value: "b" });
    const mode = (await Deno.stat(`${env.CALIMERO_MCP_STATE_DIR}/handle.key`)).mode! & 0o777;
    if (Deno.build.os !== "windows") assert.equal(mode, 0o600, "handle.key is owner-only");
    await conn.close();

    await Deno.remove(`${env.CALIMERO_MCP_STATE_DIR}/handle.key`);
    conn = await connect({ era: "2025-11-25", env });
    try {
      const refused = await conn.client.callTool({
        name: "kv_store_get",
        arguments: { app_handle: handle, key: "a" },
      });
      assert.equal(refused.isError, true, "an old handle is refused after key rotation");
      const fresh = (await callJson(conn, "select_app", { app: "kv-store", context: "demo" }))
        .app_handle;
      const ok = await conn.client.callTool({
        name: "kv_store_get",
        arguments: { app_handle: fresh, key: "a" },
      });
      assert.equal(firstText(ok), '"b"');
    } finally {
      await conn.close();
    }
  } finally {
    await sim.close();
  }
});

Deno.test("a u64 above 2^53, bytes and variants survive a round trip exactly", async () => {
  const sim = await startSimNode({ apps: ["bignum"] });
  sim.createContext(sim.appId("bignum"), { alias: "big" });
  const conn = await connect({
    era: "2026-07-28",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    const handle =
      (await callJson(conn, "select_app", { app: "bignum", context: "big" })).app_handle;
    const big = "18446744073709551615";
    const echoed = await conn.client.callTool({
      name: "bignum_echo_u64",
      arguments: { app_handle: handle, x: big },
    });
    assert.equal(firstText(echoed), `"${big}"`);
    const sum = await conn.client.callTool({
      name: "bignum_add_u64",
      arguments: { app_handle: handle, a: "9007199254740993", b: 2 },
    });
    assert.equal(firstText(sum), '"9007199254740995"');
    const bytes = await conn.client.callTool({
      name: "bignum_echo_bytes",
      arguments: { app_handle: handle, b: "00ff10" },
    });
    assert.equal(firstText(bytes), '"00ff10"');
    const shape = await conn.client.callTool({
      name: "bignum_echo_shape",
      arguments: { app_handle: handle, s: { Circle: { radius: "9007199254740993" } } },
    });
    assert.deepEqual(JSON.parse(firstText(shape)), { Circle: { radius: "9007199254740993" } });
    const colour = await conn.client.callTool({
      name: "bignum_echo_color",
      arguments: { app_handle: handle, c: "Green" },
    });
    assert.equal(firstText(colour), '"Green"');
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("call_many runs mixed successes and failures, in order within a context", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  sim.createContext(sim.appId("kv-store"), { alias: "one" });
  sim.createContext(sim.appId("kv-store"), { alias: "two" });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    const one =
      (await callJson(conn, "select_app", { app: "kv-store", context: "one" })).app_handle;
    sim.resetLog();
    const result = await callJson(conn, "call_many", {
      calls: [
        { app_handle: one, method: "set", args: { key: "x", value: "1" } },
        { app: "kv-store", context: "two", method: "set", args: { key: "x", value: "2" } },
        { app_handle: one, method: "get", args: { key: "x" } },
        { app: "kv-store", context: "two", method: "get", args: { key: "x" } },
        { app_handle: one, method: "get_result", args: { key: "nope" } },
        { method: "get", args: { key: "x" } },
        { app_handle: "forged.handle", method: "get", args: { key: "x" } },
      ],
    });
    const items = result.results as { ok: boolean; result?: unknown; error?: string }[];
    assert.equal(items.length, 7);
    assert.equal(
      sim.counts(`GET /admin-api/applications/${sim.appId("kv-store")}`),
      1,
      "the app is checked once for the whole batch, at call time",
    );
    assert.deepEqual(items.slice(0, 4).map((i) => i.ok), [true, true, true, true]);
    assert.equal(items[2].result, "1", "set then get on one context ran in order");
    assert.equal(items[3].result, "2");
    assert.equal(items[4].ok, false);
    assert.equal(items[5].ok, false);
    assert.match(items[5].error!, /select_app/);
    assert.equal(items[6].ok, false);
    assert.ok(
      !items[6].error!.includes("# "),
      "a refusal item carries the retry line, not the guide",
    );
    const empty = await conn.client.callTool({ name: "call_many", arguments: { calls: [] } });
    assert.equal(empty.isError, true, "an empty batch is an error before anything runs");
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("guides: resources/list and read, select_app shows the guide once, describe_app always, refusals carry it", async () => {
  const sim = await startSimNode({ apps: ["mero-issue-tracker"] });
  const app = sim.appId("mero-issue-tracker");
  sim.createContext(app, { alias: "issues" });
  const conn = await connect({
    era: "2026-07-28",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    const { resources } = await conn.client.listResources();
    // The app's guide, and its typed client for run_script.
    assert.deepEqual(resources.map((r) => r.mimeType), ["text/markdown", "application/typescript"]);
    assert.match(resources[0].uri, /^calimero:\/\/apps\/[^/]+\/[^/]+\/guide$/);
    assert.equal(resources[1].uri, "calimero://scripts/mero_issue_tracker.d.ts");
    const client = await conn.client.readResource({ uri: resources[1].uri });
    assert.match(
      (client.contents[0] as { text: string }).text,
      /declare namespace calimero\.mero_issue_tracker \{/,
    );
    const read = await conn.client.readResource({ uri: resources[0].uri });
    const text = (read.contents[0] as { text: string }).text;
    assert.match(text, /## Procedures/);
    await assert.rejects(() => conn.client.readResource({ uri: "calimero://apps/nope/1/guide" }));
    const { resourceTemplates } = await conn.client.listResourceTemplates();
    assert.equal(
      resourceTemplates[0].uriTemplate,
      "calimero://apps/{applicationId}/{version}/guide",
    );

    const first = await conn.client.callTool({
      name: "select_app",
      arguments: { app: "mero-issue-tracker", context: "issues" },
    });
    const second = await conn.client.callTool({
      name: "select_app",
      arguments: { app: "mero-issue-tracker", context: "issues" },
    });
    const hasGuide = (r: CallResult) =>
      (r.content as { type: string }[]).some((c) => c.type === "resource");
    assert.ok(hasGuide(first), "the full guide the first time");
    assert.ok(!hasGuide(second), "later only a pointer");
    assert.match(JSON.stringify(second.content), /describe_app/);
    const described = await conn.client.callTool({
      name: "describe_app",
      arguments: { app: "mero-issue-tracker" },
    });
    assert.ok(hasGuide(described), "describe_app always shows it");
    const refusal = await conn.client.callTool({
      name: "mero_issue_tracker_list_issues",
      arguments: {},
    });
    assert.equal(refusal.isError, true);
    assert.ok(hasGuide(refusal), "a refusal carries the guide");
    const lists = await callJson(conn, "list_applications", {});
    const tracker = lists.apps.find((a: { id: string }) => a.id === app);
    assert.ok(tracker.procedures.length > 0, "procedures from the guide");
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("without the ABI route the tools come from the bytecode's calimero_abi_v1 section", async () => {
  const sim = await startSimNode({ apps: ["kv-store"], abiRoute: false });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    const { tools } = await conn.client.listTools();
    assert.ok(tools.some((t) => t.name === "kv_store_get"));
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("--apps, --toolsets and --max-tools shape the generated tools; notAnswering says why", async () => {
  const sim = await startSimNode({ apps: ["kv-store", "bignum"] });
  try {
    const cases: { args: string[]; expect: (names: string[], meta: unknown) => void }[] = [
      {
        args: ["--apps", "kv-store,nope"],
        expect: (names, meta) => {
          assert.ok(names.includes("kv_store_get"));
          assert.ok(!names.some((n) => n.startsWith("bignum_")));
          assert.match(JSON.stringify(meta), /nope/);
        },
      },
      {
        args: ["--toolsets", "core"],
        expect: (names) => {
          assert.ok(!names.some((n) => n.startsWith("kv_store_")));
          assert.ok(names.includes("call") && names.includes("select_app"), "app tools stay");
        },
      },
      {
        args: ["--max-tools", "40"],
        expect: (names, meta) => {
          assert.ok(!names.some((n) => n.startsWith("kv_store_")));
          assert.match(JSON.stringify(meta), /max-tools/);
        },
      },
    ];
    for (const c of cases) {
      const conn = await connect({
        era: "2025-11-25",
        args: c.args,
        env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
      });
      try {
        const list = await conn.client.listTools();
        c.expect(list.tools.map((t) => t.name), list._meta);
      } finally {
        await conn.close();
      }
    }
  } finally {
    await sim.close();
  }
});

Deno.test("a call's W3C traceparent reaches every node request made for it; a malformed one is dropped", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  sim.createContext(sim.appId("kv-store"), { alias: "demo" });
  const conn = await connect({
    era: "2026-07-28",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    const handle = (await callJson(conn, "select_app", { app: "kv-store", context: "demo" }))
      .app_handle;
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    sim.resetLog();
    await conn.client.callTool({
      name: "kv_store_get_result",
      arguments: { app_handle: handle, key: "k" },
      _meta: { traceparent },
    });
    assert.ok(sim.requests.length >= 3, "the checks and the execute");
    assert.deepEqual([...new Set(sim.requests.map((r) => r.traceparent))], [traceparent]);
    sim.resetLog();
    await conn.client.callTool({
      name: "kv_store_get_result",
      arguments: { app_handle: handle, key: "k" },
      _meta: { traceparent: "not-a-trace" },
    });
    assert.ok(sim.requests.every((r) => r.traceparent === undefined));
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("a multi-service app gets per-service tools and contexts although the node's list names no services; an idle poll is one request", async () => {
  const sim = await startSimNode({ apps: ["mero-drive-docs", "kv-store"] });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url, CALIMERO_MCP_POLL_SECONDS: "1" }),
  });
  try {
    const names = (await conn.client.listTools()).tools.map((t) => t.name);
    for (const name of ["mero_drive_d_docs_write", "mero_drive_d_registry_list_docs"]) {
      assert.ok(names.includes(name), `${name} is listed`);
    }
    const namespace = sim.createNamespace(sim.appId("mero-drive-docs"));
    const created = await callJson(conn, "create_context", {
      application: "mero-drive-docs",
      group: namespace,
      service: "docs",
    });
    const handle = (await callJson(conn, "select_app", {
      app: "mero-drive-docs",
      service: "docs",
      context: created.contextId,
    })).app_handle;
    await callText(conn, "mero_drive_d_docs_write", {
      app_handle: handle,
      doc_id: "a",
      text: "one two",
    });
    assert.equal(
      await callText(conn, "mero_drive_d_docs_word_count", { app_handle: handle, doc_id: "a" }),
      "2",
    );

    // Services are read from each app's own record once; polls after that list the apps and nothing else.
    sim.resetLog();
    await until(() => sim.counts("GET /admin-api/applications") >= 2, 5_000, "two polls");
    const polls = sim.counts("GET /admin-api/applications");
    assert.ok(polls >= 2, `at least two polls ran (${polls})`);
    assert.deepEqual(
      sim.requests.map((r) => `${r.method} ${r.path}`).filter((r) =>
        r !== "GET /admin-api/applications"
      ),
      [],
      "an idle poll reads no record and no ABI",
    );
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("null for an optional argument of a fixed or app tool means it was left out", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  sim.createContext(sim.appId("kv-store"), { alias: "shop" });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    const selected = await callJson(conn, "select_app", {
      app: "kv-store",
      context: "shop",
      service: null,
    });
    assert.equal(typeof selected.app_handle, "string");
    const contexts = await callJson(conn, "list_contexts", { application: null });
    assert.ok(Array.isArray(contexts.contexts));
  } finally {
    await conn.close();
    await sim.close();
  }
});
