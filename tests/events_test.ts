// Events (issue 16), end to end with the real process in both eras: an agent on node B waits for what an agent on
// node A writes in a shared context; timeouts, reconnects, app changes, bounds and resources as a client sees them.

import assert from "assert";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  callJson,
  connect,
  type Connection,
  ERAS,
  firstText,
  isolatedEnv,
  until,
} from "./harness.ts";
import { startHttp } from "./http_harness.ts";
import { type SimNode, startSimNode } from "./sim_node/mod.ts";
import { call, rpc } from "./sim_node/testing.ts";

type Json = Record<string, unknown>;
type Event = Json & { type: string; cursor: string };

/** B joins A's namespace and context through the nodes' own endpoints (the invitation round trip). */
async function share(a: SimNode, b: SimNode, groupId: string, contextId: string): Promise<void> {
  const invite = await call(a, "POST", `/admin-api/namespaces/${groupId}/invite`, {});
  const { data } = invite.body as { data: { invitation: unknown } };
  const joined = await call(b, "POST", `/admin-api/namespaces/${groupId}/join`, {
    invitation: data.invitation,
  });
  assert.equal(joined.status, 200, joined.text);
  const ctx = await call(b, "POST", `/admin-api/contexts/${contextId}/join`, {});
  assert.equal(ctx.status, 200, ctx.text);
}

/** Writes through the node's JSON-RPC, as another client of the node would. */
async function write(
  node: SimNode,
  contextId: string,
  method: string,
  args: Json,
  headers: Record<string, string> = {},
): Promise<void> {
  const body = await rpc(node, contextId, method, args, headers);
  assert.ok(body.result, JSON.stringify(body));
}

/** Whether the node has an open stream whose session is subscribed to the context (the resubscribe has landed). */
function streaming(node: SimNode, contextId: string): boolean {
  return [...node.state.events!.sessions.values()].some((s) =>
    s.connection !== null && s.subscriptions.has(contextId)
  );
}

/** The events after `after` until one of `type` is among them (a gap may come back on its own first). */
async function eventsUntil(
  conn: Connection,
  contextId: string,
  after: string,
  type: string,
): Promise<{ events: Event[]; notes: string[] }> {
  const events: Event[] = [];
  const notes: string[] = [];
  let cursor = after;
  while (!events.some((e) => e.type === type)) {
    const got = await callJson(conn, "wait_for_events", {
      context: contextId,
      after: cursor,
      timeout_s: 5,
    });
    assert.ok(
      (got.events as Event[]).length > 0,
      `no ${type} within 5 s: ${JSON.stringify(events)}`,
    );
    events.push(...got.events as Event[]);
    notes.push(...(got.notes as string[] | undefined) ?? []);
    cursor = got.cursor as string;
  }
  return { events, notes };
}

for (const era of ERAS) {
  Deno.test(`[${era}] a write on node A reaches an agent waiting on node B, decoded; a timeout returns an empty result with a cursor`, async () => {
    const a = await startSimNode({ apps: ["kv-store"] });
    const b = await startSimNode({ apps: ["kv-store"] });
    const kv = a.appId("kv-store");
    const { contextId, groupId } = a.createContext(kv);
    await share(a, b, groupId, contextId);
    const envA = await isolatedEnv({ CALIMERO_NODE_URL: a.url });
    const envB = await isolatedEnv({ CALIMERO_NODE_URL: b.url });
    const [connA, connB] = await Promise.all([
      connect({ era, env: envA }),
      connect({ era, env: envB }),
    ]);
    try {
      const listed = await connB.client.listTools();
      const wait = listed.tools.find((t) => t.name === "wait_for_events");
      assert.deepEqual(wait?.annotations, {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });

      const onB = await callJson(connB, "select_app", { app: "kv-store", context: contextId });
      assert.match(String(onB.watchingEvents), /^yes/);
      const onA = await callJson(connA, "select_app", { app: "kv-store", context: contextId });

      const waiting = callJson(connB, "wait_for_events", {
        app_handle: onB.app_handle,
        timeout_s: 20,
      });
      const set = await connA.client.callTool({
        name: "kv_store_set",
        arguments: { app_handle: onA.app_handle, key: "greeting", value: "hello" },
      });
      assert.ok(!set.isError, firstText(set));
      const got = await waiting;
      const events = got.events as Event[];
      assert.equal(events.length, 1, JSON.stringify(got));
      assert.equal(events[0].type, "app_event");
      assert.equal(events[0].name, "Inserted");
      assert.deepEqual(events[0].payload, { key: "greeting", value: "hello" });
      assert.equal(typeof events[0].stateRoot, "string");
      assert.equal(got.timedOut, undefined);

      // Nothing more happens: the wait ends at its timeout, empty, with a cursor that still works.
      const updates: { progress: number; total?: number }[] = [];
      const started = Date.now();
      const idle = await callJson(
        connB,
        "wait_for_events",
        { app_handle: onB.app_handle, after: got.cursor, timeout_s: 2.5 },
        { onprogress: (p: { progress: number; total?: number }) => updates.push(p) },
      );
      assert.ok(Date.now() - started >= 2_400, "it waited");
      assert.deepEqual(idle.events, []);
      assert.equal(idle.timedOut, true);
      assert.equal(typeof idle.cursor, "string");
      assert.equal(updates.length, 1, "one progress update in 2.5 s");
      assert.equal(updates[0].total, 2.5);

      await write(a, contextId, "set", { key: "greeting", value: "bye" });
      await write(a, contextId, "remove", { key: "greeting" });
      const next = await callJson(connB, "wait_for_events", {
        context: contextId,
        after: idle.cursor,
        events: ["Removed"],
        timeout_s: 5,
      });
      const removed = next.events as Event[];
      assert.equal(removed.length, 1, JSON.stringify(next));
      assert.equal(removed[0].name, "Removed");
      assert.deepEqual(removed[0].payload, { key: "greeting" });
      // One stream per process, opened once, with one subscription per watched context.
      assert.equal(b.counts("GET /sse"), 1);
      assert.equal(b.counts("POST /sse/subscription"), 1);
    } finally {
      await Promise.all([connA.close(), connB.close()]);
      await Promise.all([a.close(), b.close()]);
      await Promise.all(
        [envA, envB].map((e) => Deno.remove(e.HOME, { recursive: true }).catch(() => {})),
      );
    }
  });

  Deno.test(`[${era}] a dropped stream reconnects and resubscribes; the gap is said; cancellation ends a wait`, async () => {
    const sim = await startSimNode({ apps: ["kv-store"] });
    const { contextId } = sim.createContext(sim.appId("kv-store"));
    const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
    const conn = await connect({ era, env });
    try {
      assert.match(String((await callJson(conn, "node_status", {})).events), /no context watched/);
      assert.equal(sim.counts("GET /sse"), 0, "no stream before a context is watched");
      const first = await callJson(conn, "wait_for_events", { context: contextId, timeout_s: 0 });
      assert.match(String((first.notes as string[])[0]), /not watched before/);
      assert.equal(
        (await callJson(conn, "node_status", {})).events,
        "stream open, 1 context watched",
      );
      sim.dropEventStreams();
      await until(
        () => sim.counts("GET /sse") === 2 && sim.openEventStreams === 1,
        5_000,
        "a reconnect",
      );
      // Last-Event-ID resumes the node's session, subscriptions included; mero-mcp subscribes again anyway (the
      // session may be gone), and the test waits for both.
      await until(
        () => streaming(sim, contextId) && sim.counts("POST /sse/subscription") === 2,
        5_000,
        "a resubscribe",
      );
      await write(sim, contextId, "set", { key: "k", value: "after" });
      const got = await eventsUntil(conn, contextId, first.cursor as string, "app_event");
      const events = got.events;
      assert.deepEqual(events.map((e) => e.type), ["gap", "app_event"], JSON.stringify(got));
      assert.match(String(events[0].note), /interrupted/);
      assert.deepEqual(events[1].payload, { key: "k", value: "after" });
      assert.ok(got.notes.some((n) => /re-read the state/.test(n)));
      const last = await callJson(conn, "wait_for_events", { context: contextId, timeout_s: 0 });

      // A cancelled wait ends at once: the next call is answered without waiting out the first one's timeout.
      const controller = new AbortController();
      const cancelled = conn.client.callTool(
        {
          name: "wait_for_events",
          arguments: { context: contextId, after: last.cursor, timeout_s: 60 },
        },
        { signal: controller.signal },
      ).catch((error) => error);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const at = Date.now();
      controller.abort();
      assert.ok(await cancelled instanceof Error);
      const quick = await callJson(conn, "wait_for_events", {
        context: contextId,
        after: last.cursor,
        timeout_s: 0,
      });
      assert.deepEqual(quick.events, []);
      assert.ok(Date.now() - at < 2_000);
    } finally {
      await conn.close();
      await sim.close();
      await Deno.remove(env.HOME, { recursive: true }).catch(() => {});
    }
  });

  Deno.test(`[${era}] a context moved to another app: the catalog refreshes within a second and old handles are stale`, async () => {
    const sim = await startSimNode({ apps: ["kv-store"] });
    const kv = sim.appId("kv-store");
    const { contextId } = sim.createContext(kv);
    const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
    let tools: string[] = [];
    const conn = await connect({ era, env, onToolsChanged: (t) => tools = t.map((x) => x.name) });
    try {
      const selected = await callJson(conn, "select_app", { app: "kv-store", context: contextId });
      assert.match(String(selected.watchingEvents), /^yes/);
      // Installed behind the server's back: only the poll (30 s) would find it, unless the event does.
      const next = sim.install({
        package: "com.example.notes",
        version: "2.0.0",
        abi: sim.state.apps.get(kv)!.units[0].abiText!,
      });
      const moved = Date.now();
      sim.moveContext(contextId, next.applicationId);
      await until(() => tools.some((t) => t.startsWith("notes_")), 1_000, "the new app's tools");
      assert.ok(Date.now() - moved < 1_000);
      const stale = await conn.client.callTool({
        name: "kv_store_get",
        arguments: { app_handle: selected.app_handle, key: "k" },
      });
      assert.equal(stale.isError, true);
      assert.match(firstText(stale), /not a context of|stale/);
      const seen = await callJson(conn, "wait_for_events", { context: contextId, timeout_s: 0 });
      const changed = (seen.events as Event[]).find((e) => e.type === "app_version_changed");
      assert.ok(changed, JSON.stringify(seen));
      assert.equal(changed.fromVersion, "1.0.0");
      assert.equal(changed.toVersion, "2.0.0");
      assert.match(String(changed.note), /select_app again/);
    } finally {
      await conn.close();
      await sim.close();
      await Deno.remove(env.HOME, { recursive: true }).catch(() => {});
    }
  });

  Deno.test(`[${era}] bounds hold under a flood: 256 events kept per context, 100 per result, 32 contexts watched`, async () => {
    const sim = await startSimNode({ apps: ["kv-store"] });
    const kv = sim.appId("kv-store");
    const { contextId } = sim.createContext(kv);
    const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
    const conn = await connect({ era, env });
    try {
      const start = await callJson(conn, "wait_for_events", { context: contextId, timeout_s: 0 });
      for (let i = 0; i < 600; i++) {
        await write(sim, contextId, "set", { key: `k${i}`, value: "v".repeat(100) });
      }
      // The stream delivers in order: once the final Removed is kept, every earlier event has been seen.
      await write(sim, contextId, "remove", { key: "k599" });
      // On a loaded machine the stream may lag the writes by seconds: wait for the Removed itself.
      const removed = await callJson(conn, "wait_for_events", {
        context: contextId,
        after: start.cursor,
        events: ["Removed"],
        timeout_s: 60,
      });
      assert.ok(
        (removed.events as Event[]).some((e) => e.name === "Removed"),
        "the Removed arrived",
      );
      let cursor = start.cursor as string;
      let seen = 0;
      let lost = false;
      let last: Event | undefined;
      for (;;) {
        const page = await callJson(conn, "wait_for_events", {
          context: contextId,
          after: cursor,
          timeout_s: 0,
        });
        const events = page.events as Event[];
        assert.ok(events.length <= 100);
        lost ||= (page.notes as string[] | undefined)?.some((n) => /dropped/.test(n)) ?? false;
        seen += events.length;
        last = events[events.length - 1] ?? last;
        cursor = page.cursor as string;
        if (!page.more) break;
      }
      assert.equal(seen, 256, "the last 256 of 601 were kept");
      assert.equal(lost, true, "the result says earlier ones were dropped");
      assert.equal(last?.name, "Removed");
      assert.deepEqual(last?.payload, { key: "k599" });

      // A 33rd watched context lets the least recently used one go.
      const others = Array.from({ length: 32 }, () => sim.createContext(kv).contextId);
      let evicted = "";
      for (const id of others) {
        const r = await callJson(conn, "wait_for_events", { context: id, timeout_s: 0 });
        const note = (r.notes as string[]).find((n) => /Stopped watching/.test(n));
        if (note) evicted = note;
      }
      assert.match(evicted, new RegExp(`Stopped watching context ${contextId}`));
    } finally {
      await conn.close();
      await sim.close();
      await Deno.remove(env.HOME, { recursive: true }).catch(() => {});
    }
  });

  Deno.test(`[${era}] a context's events are a resource; a subscriber is told when new ones arrive`, async () => {
    const sim = await startSimNode({ apps: ["kv-store"] });
    const { contextId } = sim.createContext(sim.appId("kv-store"));
    const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
    const conn = await connect({ era, env });
    const uri = `calimero://contexts/${contextId}/events`;
    try {
      const updated: string[] = [];
      conn.client.setNotificationHandler("notifications/resources/updated", (n) => {
        updated.push(n.params.uri);
      });
      const read = await conn.client.readResource({ uri });
      const first = JSON.parse((read.contents[0] as { text: string }).text);
      assert.deepEqual(first.events, []);
      assert.match(first.note, /Watched from now on/);
      const listed = await conn.client.listResources(undefined, { cacheMode: "refresh" });
      assert.ok(listed.resources.some((r) => r.uri === uri));
      if (era === "2026-07-28") await conn.client.listen({ resourceSubscriptions: [uri] });
      else await conn.client.subscribeResource({ uri });
      await write(sim, contextId, "set", { key: "a", value: "b" });
      await until(() => updated.includes(uri), 3_000, "notifications/resources/updated");
      const again = await conn.client.readResource({ uri });
      const events = JSON.parse((again.contents[0] as { text: string }).text).events as Event[];
      assert.equal(events.length, 1);
      assert.deepEqual(events[0].payload, { key: "a", value: "b" });
    } finally {
      await conn.close();
      await sim.close();
      await Deno.remove(env.HOME, { recursive: true }).catch(() => {});
    }
  });
}

Deno.test("a context the node will not stream is refused with the reason; watch: false stops watching", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  const kv = sim.appId("kv-store");
  const { contextId } = sim.createContext(kv);
  const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
  const conn = await connect({ era: "2025-11-25", env });
  try {
    // A key-authenticated caller may observe only contexts it is a member of.
    sim.setEventObserver("member");
    const elsewhere = "11111111111111111111111111111111";
    const refused = await conn.client.callTool({
      name: "wait_for_events",
      arguments: { context: elsewhere, timeout_s: 0 },
    });
    assert.equal(refused.isError, true);
    assert.match(firstText(refused), /cannot be watched: the node did not subscribe/);

    const watched = await callJson(conn, "select_app", { app: "kv-store", context: contextId });
    assert.match(String(watched.watchingEvents), /^yes/);
    // A handle goes through the gate's own checks: a forged one is refused, and so is a context beside it that
    // names another context.
    const handle = watched.app_handle as string;
    const forged = await conn.client.callTool({
      name: "wait_for_events",
      arguments: { app_handle: `${handle.slice(0, -4)}AAAA`, timeout_s: 0 },
    });
    assert.equal(forged.isError, true);
    assert.match(JSON.stringify(forged.content), /app_handle was not accepted/);
    const other = sim.createContext(kv).contextId;
    const mismatch = await conn.client.callTool({
      name: "wait_for_events",
      arguments: { app_handle: handle, context: other, timeout_s: 0 },
    });
    assert.equal(mismatch.isError, true);
    assert.match(JSON.stringify(mismatch.content), /name different contexts/);
    const stopped = await callJson(conn, "select_app", {
      app: "kv-store",
      context: contextId,
      watch: false,
    });
    assert.match(String(stopped.watchingEvents), /^no/);
    // Nothing watched: the stream is closed (no connection held while nothing is watched).
    await until(() => sim.openEventStreams === 0, 3_000, "the stream to close");
  } finally {
    await conn.close();
    await sim.close();
    await Deno.remove(env.HOME, { recursive: true }).catch(() => {});
  }
});

Deno.test("with embedded auth the stream carries the session's token; after it expires, the reconnect refreshes it", async () => {
  const sim = await startSimNode({
    apps: ["kv-store"],
    auth: { username: "admin", password: "pw" },
  });
  const { contextId } = sim.createContext(sim.appId("kv-store"));
  const env = await isolatedEnv({
    CALIMERO_NODE_URL: sim.url,
    CALIMERO_USERNAME: "admin",
    CALIMERO_PASSWORD: "pw",
  });
  const conn = await connect({ era: "2025-11-25", env });
  try {
    const first = await callJson(conn, "wait_for_events", { context: contextId, timeout_s: 0 });
    assert.equal(sim.stats.refreshes, 0);
    sim.expireTokens();
    sim.dropEventStreams();
    await until(() => sim.openEventStreams === 1, 5_000, "a reconnect");
    assert.equal(sim.stats.refreshes, 1, "the reconnect refreshed the expired token once");
    await until(() => streaming(sim, contextId), 5_000, "a resubscribe");
    const { access_token: token } = sim.issueTokens();
    await write(sim, contextId, "set", { key: "a", value: "1" }, {
      authorization: `Bearer ${token}`,
    });
    const got = await eventsUntil(conn, contextId, first.cursor as string, "app_event");
    assert.deepEqual(got.events.map((e) => e.type), ["gap", "app_event"], JSON.stringify(got));
    assert.ok(!conn.stderr().includes(token));
  } finally {
    await conn.close();
    await sim.close();
    await Deno.remove(env.HOME, { recursive: true }).catch(() => {});
  }
});

for (const era of ERAS) {
  Deno.test(`[${era}] HTTP mode: wait_for_events works across requests; no resource subscriptions are offered`, async () => {
    const sim = await startSimNode({ apps: ["kv-store"] });
    const { contextId } = sim.createContext(sim.appId("kv-store"));
    const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
    const server = await startHttp({ env });
    const client = new Client(
      { name: "mero-mcp-tests", version: "1.0.0" },
      era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
    );
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      assert.ok(
        !client.getServerCapabilities()?.resources?.subscribe,
        "stateless: nothing to notify on",
      );
      const call = async (args: Json) => {
        const result = await client.callTool({ name: "wait_for_events", arguments: args });
        assert.ok(!result.isError, firstText(result));
        return JSON.parse(firstText(result));
      };
      const first = await call({ context: contextId, timeout_s: 0 });
      const waiting = call({ context: contextId, after: first.cursor, timeout_s: 10 });
      // Whether the write lands before or during the wait, the cursor finds it: the events are the process's.
      await write(sim, contextId, "set", { key: "h", value: "t" });
      const got = await waiting;
      assert.deepEqual((got.events as Event[]).map((e) => e.name), ["Inserted"]);
    } finally {
      await client.close();
      await server.stop();
      await sim.close();
      await Deno.remove(env.HOME, { recursive: true }).catch(() => {});
    }
  });
}
