import assert from "assert";
import { parseConfig } from "../config/config.ts";
import { DiscoveryError } from "./discovery.ts";
import type { MeroClient } from "../mero/mod.ts";
import type { NodeConnection } from "./node.ts";
import { createSession } from "./session.ts";

const config = parseConfig([], { HOME: "/nonexistent-home" });

/** A connection whose client records calls; `fail` makes health throw like an unreachable node. */
function fakeConnection(calls: string[], options: { fail?: boolean } = {}): NodeConnection {
  const client = {
    baseUrl: "http://localhost:2528",
    admin: {
      health: (...args: unknown[]) => {
        calls.push(`health ${JSON.stringify(args)}`);
        return options.fail
          ? Promise.reject(new Error("refused"))
          : Promise.resolve({ status: "alive" });
      },
      listApplications: () => Promise.resolve({ apps: [] }),
    },
    rpc: {
      execute: (request: unknown) => {
        calls.push(`execute ${JSON.stringify(request)}`);
        return Promise.resolve("out");
      },
    },
  } as unknown as MeroClient;
  return {
    client,
    url: "http://localhost:2528",
    nodeName: "node1",
    discoverySource: "config-scan",
    authMode: "none",
  };
}

/** A connect function that fails `failures` times, then succeeds; counts attempts. */
function flakyConnect(failures: number, calls: string[] = []) {
  const state = { attempts: 0 };
  const connect = () => {
    state.attempts++;
    if (state.attempts <= failures) {
      return Promise.reject(
        new DiscoveryError(`No Calimero node found (attempt ${state.attempts}).`),
      );
    }
    return Promise.resolve(fakeConnection(calls));
  };
  return { connect, state };
}

Deno.test("creating a session contacts nothing and shows placeholders", () => {
  const { connect, state } = flakyConnect(0);
  const session = createSession(config, connect);
  assert.equal(state.attempts, 0);
  assert.deepEqual(session.info(), {
    url: null,
    nodeName: null,
    discoverySource: null,
    authMode: null,
  });
});

Deno.test("a failed connect fails only that request; the next one connects", async () => {
  const calls: string[] = [];
  const { connect, state } = flakyConnect(1, calls);
  const session = createSession(config, connect);
  await assert.rejects(session.admin.health(), { name: "DiscoveryError", message: /attempt 1/ });
  assert.deepEqual(session.info().url, null, "placeholders after a failure");
  assert.deepEqual(await session.admin.health(), { status: "alive" });
  assert.equal(state.attempts, 2);
  assert.deepEqual(session.info(), {
    url: "http://localhost:2528",
    nodeName: "node1",
    discoverySource: "config-scan",
    authMode: "none",
  });
});

Deno.test("a successful connection is kept for the process lifetime", async () => {
  const calls: string[] = [];
  const { connect, state } = flakyConnect(0, calls);
  const session = createSession(config, connect);
  await session.admin.health();
  await session.rpc.execute({ contextId: "c", method: "get", argsJson: { key: "k" } });
  await session.connect();
  assert.equal((await session.connection()).nodeName, "node1");
  assert.equal(state.attempts, 1);
  assert.deepEqual(calls, [
    "health []",
    'execute {"contextId":"c","method":"get","argsJson":{"key":"k"}}',
  ]);
});

Deno.test("concurrent first requests share one connection attempt", async () => {
  const { connect, state } = flakyConnect(0);
  const session = createSession(config, connect);
  await Promise.all([session.admin.health(), session.connect(), session.admin.listApplications()]);
  assert.equal(state.attempts, 1);
});

Deno.test("connect() forces the connection and returns its facts", async () => {
  const session = createSession(config, flakyConnect(0).connect);
  assert.deepEqual(await session.connect(), {
    url: "http://localhost:2528",
    nodeName: "node1",
    discoverySource: "config-scan",
    authMode: "none",
  });
});

Deno.test("the namespaces pass arguments through and are not thenables", async () => {
  const calls: string[] = [];
  const session = createSession(config, flakyConnect(0, calls).connect);
  assert.equal((session.admin as unknown as { then?: unknown }).then, undefined);
  assert.equal(
    session.admin.health,
    session.admin.health,
    "a method is the same function each time",
  );
  const signal = new AbortController().signal;
  await session.admin.health({ timeoutMs: 5 });
  assert.equal(await session.rpc.execute({ contextId: "c", method: "m" }, { signal }), "out");
  assert.deepEqual(calls, ['health [{"timeoutMs":5}]', 'execute {"contextId":"c","method":"m"}']);
  const missing = (session.admin as unknown as Record<string, () => Promise<unknown>>).noSuchCall;
  await assert.rejects(missing(), {
    name: "TypeError",
    message: 'The node client has no method "admin.noSuchCall".',
  });
});

Deno.test("onFirstSuccess fires once, after the first node call that succeeds", async () => {
  const calls: string[] = [];
  let attempts = 0;
  const session = createSession(config, () => {
    attempts++;
    return Promise.resolve(fakeConnection(calls, { fail: attempts === 1 }));
  });
  const seen: (string | null)[] = [];
  session.onFirstSuccess((info) => seen.push(info.url));
  const removed: string[] = [];
  const unregister = session.onFirstSuccess(() => removed.push("called"));
  unregister();
  await session.connect();
  assert.deepEqual(seen, [], "connecting alone is not a node answer");
  await assert.rejects(session.admin.health());
  assert.deepEqual(seen, [], "a failed call does not fire it");
  await session.admin.listApplications();
  await session.admin.listApplications();
  assert.deepEqual(seen, ["http://localhost:2528"]);
  assert.deepEqual(removed, []);
  const late = await new Promise((resolve) =>
    session.onFirstSuccess((info) => resolve(info.nodeName))
  );
  assert.equal(late, "node1", "a listener added afterwards is called right away");
});
