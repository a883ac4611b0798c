import assert from "assert";
import { type Config, parseConfig } from "../config/config.ts";
import type { Handoff } from "./discovery.ts";
import type { NodeHttpError } from "../mero/mod.ts";
import { chooseAuthMode, connectNode } from "./node.ts";
import { createSession } from "./session.ts";
import { createTokenStore, credentialIdentity } from "./tokens.ts";
import { startSimNode } from "../../tests/sim_node/mod.ts";

// ---- a small node with embedded auth ---------------------------------------------------------------------

/** An unsigned JWT carrying `claims`. */
function jwt(claims: Record<string, unknown>): string {
  const encode = (v: unknown) =>
    btoa(JSON.stringify(v)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${encode({ alg: "HS256", typ: "JWT" })}.${encode(claims)}.c2ln`;
}

/**
 * Embedded auth as core's auth service does it: `/auth/token`, `/auth/refresh` (only once the access token expired;
 * each refresh token once, a replay revokes the family), a guarded `/admin-api/applications`, a public health.
 */
function fakeAuthNode(users: Record<string, string> = { alice: "pw" }) {
  let seq = 0;
  const access = new Map<string, { family: number; expired: boolean }>();
  const refresh = new Map<string, { family: number; access: string; used: boolean }>();
  const revoked = new Set<number>();
  const stats = { logins: 0, refreshes: 0, reuses: 0, headers: [] as (string | null)[] };
  const knobs = { failNextRefresh: false };

  function issue(family: number) {
    seq++;
    const now = Math.floor(Date.now() / 1000);
    const accessToken = jwt({ sub: "u", iat: now + seq, exp: now + 3600 + seq, n: seq });
    const refreshToken = `refresh-${seq}`;
    access.set(accessToken, { family, expired: false });
    refresh.set(refreshToken, { family, access: accessToken, used: false });
    return { access_token: accessToken, refresh_token: refreshToken };
  }
  const authError = (status: number, code: string | null, message?: string) =>
    new Response(message ? JSON.stringify({ error: message }) : null, {
      status,
      headers: code ? { "x-auth-error": code } : {},
    });

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/admin-api/health") return Response.json({ data: { status: "alive" } });
    if (path === "/auth/token") {
      const body = await req.json();
      const { username, password } = body.provider_data ?? {};
      if (users[username] !== password) return authError(401, null, "invalid credentials");
      stats.logins++;
      return Response.json({ data: issue(seq + 1000), error: null });
    }
    if (path === "/auth/refresh") {
      const body = await req.json();
      const entry = refresh.get(body.refresh_token);
      if (!entry) return authError(401, null, "unknown refresh token");
      if (entry.used || knobs.failNextRefresh) {
        knobs.failNextRefresh = false;
        revoked.add(entry.family);
        stats.reuses++;
        return authError(401, "token_reuse");
      }
      if (revoked.has(entry.family)) return authError(401, "token_revoked");
      if (!access.get(entry.access)?.expired) {
        return authError(401, null, "access token still valid");
      }
      entry.used = true;
      stats.refreshes++;
      return Response.json({ data: issue(entry.family), error: null });
    }
    const header = req.headers.get("authorization");
    stats.headers.push(header);
    const token = access.get(header?.replace(/^Bearer /, "") ?? "");
    if (!token) return authError(401, null);
    if (revoked.has(token.family)) return authError(403, "token_revoked");
    if (token.expired) return authError(401, "token_expired");
    return Response.json({ data: { apps: [] } });
  });

  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    port: server.addr.port,
    stats,
    knobs,
    /** A pair issued out of band (what the desktop app or an env variable would carry). */
    mint: (family = 1) => issue(family),
    expireTokens: () => access.forEach((t) => t.expired = true),
    revoke: (accessToken: string) => revoked.add(access.get(accessToken)!.family),
    close: () => server.shutdown(),
  };
}

async function makeConfig(overrides: Partial<Config>): Promise<Config> {
  const base = parseConfig([], { HOME: "/nonexistent-home" });
  return {
    ...base,
    stateDir: await Deno.makeTempDir({ prefix: "mero-node-" }),
    nodeHome: "/nonexistent-home/.calimero",
    ...overrides,
  };
}

/** Writes the desktop app's handoff file (`agent.json`) into the state dir. */
function writeHandoff(
  config: Config,
  nodeUrl: string,
  pair: { access_token: string; refresh_token: string },
): Promise<void> {
  return Deno.writeTextFile(
    `${config.stateDir}/agent.json`,
    JSON.stringify({
      nodeUrl,
      accessToken: pair.access_token,
      refreshToken: pair.refresh_token,
    }),
  );
}

async function captureStderr<T>(fn: () => Promise<T>): Promise<{ value: T; stderr: string }> {
  const original = Deno.stderr.writeSync;
  let stderr = "";
  Deno.stderr.writeSync = (bytes: Uint8Array) => {
    stderr += new TextDecoder().decode(bytes);
    return bytes.length;
  };
  try {
    return { value: await fn(), stderr };
  } finally {
    Deno.stderr.writeSync = original;
  }
}

// ---- choosing the mode -----------------------------------------------------------------------------------

Deno.test("the auth mode is the first that applies: a configured token, credentials, the handoff for its own node, none", async () => {
  const handoff: Handoff = {
    nodeUrl: "http://127.0.0.1:2528/",
    accessToken: "h",
    refreshToken: null,
  };
  const token = { authToken: "t", refreshToken: null };
  const creds = { username: "alice", password: "pw" };
  const cases: [string, Partial<Config>, Handoff | null, string, string][] = [
    [
      "a configured token beats the handoff",
      { ...token },
      handoff,
      "http://localhost:2528",
      "token",
    ],
    [
      "configured credentials beat the handoff",
      creds,
      handoff,
      "http://localhost:2528",
      "credentials",
    ],
    ["handoff, same node spelled differently", {}, handoff, "http://localhost:2528", "handoff"],
    ["handoff for another node", { ...token, ...creds }, handoff, "http://localhost:2428", "token"],
    ["token beats credentials", { ...token, ...creds }, null, "http://localhost:2528", "token"],
    ["credentials", creds, null, "http://localhost:2528", "credentials"],
    ["nothing configured", {}, handoff, "http://localhost:2428", "none"],
  ];
  for (const [what, overrides, h, url, expected] of cases) {
    assert.equal(chooseAuthMode(await makeConfig(overrides), url, h), expected, what);
  }
});

Deno.test("configured secrets are never sent to a node found only by probing; a handoff still is, to its own node", async () => {
  const secrets = await makeConfig({ authToken: "t", username: "alice", password: "pw" });
  for (const source of ["env", "named", "config-scan"] as const) {
    assert.equal(chooseAuthMode(secrets, "http://localhost:2528", null, source), "token", source);
  }
  assert.equal(chooseAuthMode(secrets, "http://localhost:2528", null, "probe"), "none");
  const handoff: Handoff = {
    nodeUrl: "http://localhost:2528",
    accessToken: "h",
    refreshToken: null,
  };
  assert.equal(chooseAuthMode(secrets, "http://localhost:2528", handoff, "probe"), "handoff");
});

// ---- connecting ------------------------------------------------------------------------------------------

Deno.test("with no auth configured no Authorization header is sent", async () => {
  const node = fakeAuthNode();
  try {
    const conn = await connectNode(await makeConfig({ nodeUrl: node.url }), { handoff: null });
    assert.equal(conn.authMode, "none");
    assert.equal(conn.discoverySource, "env");
    await assert.rejects(
      conn.client.admin.listApplications(),
      (err: NodeHttpError) => err.status === 401,
    );
    assert.deepEqual(node.stats.headers, [null]);
  } finally {
    await node.close();
  }
});

Deno.test("credentials log in once and later connections reuse the stored token", async () => {
  const node = fakeAuthNode();
  try {
    const config = await makeConfig({ nodeUrl: node.url, username: "alice", password: "pw" });
    const first = await connectNode(config, { handoff: null });
    assert.equal(first.authMode, "credentials");
    await first.client.admin.listApplications();
    await first.client.admin.listApplications();
    const second = await connectNode(config, { handoff: null });
    await second.client.admin.listApplications();
    assert.equal(node.stats.logins, 1);
    assert.ok(node.stats.headers.every((h) => h !== null && h.startsWith("Bearer ")));
  } finally {
    await node.close();
  }
});

Deno.test("wrong credentials surface the node's login refusal", async () => {
  const node = fakeAuthNode();
  try {
    const config = await makeConfig({ nodeUrl: node.url, username: "alice", password: "nope" });
    const conn = await connectNode(config, { handoff: null });
    await assert.rejects(conn.client.admin.listApplications(), (err: NodeHttpError) => {
      assert.equal(err.status, 401);
      assert.equal(err.path, "/auth/token");
      return true;
    });
  } finally {
    await node.close();
  }
});

Deno.test("an expired token is refreshed once for 8 concurrent requests, then they all succeed", async () => {
  const node = fakeAuthNode();
  try {
    const config = await makeConfig({ nodeUrl: node.url, username: "alice", password: "pw" });
    const conn = await connectNode(config, { handoff: null });
    await conn.client.admin.listApplications();
    node.expireTokens();
    await Promise.all(Array.from({ length: 8 }, () => conn.client.admin.listApplications()));
    assert.equal(node.stats.refreshes, 1);
    assert.equal(node.stats.reuses, 0);
    assert.equal(node.stats.logins, 1);
  } finally {
    await node.close();
  }
});

Deno.test("two connections sharing the state dir spend one refresh token once", async () => {
  const node = fakeAuthNode();
  try {
    const config = await makeConfig({ nodeUrl: node.url, username: "alice", password: "pw" });
    const a = await connectNode(config, { handoff: null });
    const b = await connectNode(
      { ...config, nodeUrl: node.url.replace("127.0.0.1", "localhost") },
      {
        handoff: null,
      },
    );
    await a.client.admin.listApplications();
    await b.client.admin.listApplications();
    node.expireTokens();
    await Promise.all([a.client.admin.listApplications(), b.client.admin.listApplications()]);
    assert.equal(node.stats.logins, 1, "the second connection found the first one's login");
    assert.equal(node.stats.refreshes, 1);
    assert.equal(node.stats.reuses, 0);
  } finally {
    await node.close();
  }
});

Deno.test("in credentials mode a failed refresh is followed by one fresh login", async () => {
  const node = fakeAuthNode();
  try {
    const config = await makeConfig({ nodeUrl: node.url, username: "alice", password: "pw" });
    const conn = await connectNode(config, { handoff: null });
    await conn.client.admin.listApplications();
    node.expireTokens();
    node.knobs.failNextRefresh = true;
    const { stderr } = await captureStderr(() => conn.client.admin.listApplications());
    assert.equal(node.stats.logins, 2);
    assert.match(stderr, /Refreshing the token .* failed; logging in again/);
    assert.doesNotMatch(stderr, /refresh-\d|eyJ/, "no token in the log");
  } finally {
    await node.close();
  }
});

Deno.test("an env token is used, and an older env token never replaces its refreshed successor", async () => {
  const node = fakeAuthNode();
  try {
    const pair = node.mint();
    const config = await makeConfig({
      nodeUrl: node.url,
      authToken: pair.access_token,
      refreshToken: pair.refresh_token,
    });
    const conn = await connectNode(config, { handoff: null });
    assert.equal(conn.authMode, "token");
    await conn.client.admin.listApplications();
    node.expireTokens();
    await conn.client.admin.listApplications();
    assert.equal(node.stats.refreshes, 1);
    // A restart with the same (now consumed) env pair must not bring it back.
    const again = await connectNode(config, { handoff: null });
    await again.client.admin.listApplications();
    assert.equal(node.stats.reuses, 0);
    assert.notEqual(node.stats.headers.at(-1), `Bearer ${pair.access_token}`);
  } finally {
    await node.close();
  }
});

Deno.test("a replayed refresh token says another client spent it and what to set; the store is not dropped", async () => {
  const node = fakeAuthNode();
  try {
    const pair = node.mint();
    const config = await makeConfig({
      nodeUrl: node.url,
      authToken: pair.access_token,
      refreshToken: pair.refresh_token,
    });
    const conn = await connectNode(config, { handoff: null });
    await conn.client.admin.listApplications();
    node.expireTokens();
    node.knobs.failNextRefresh = true;
    await assert.rejects(
      conn.client.admin.listApplications(),
      /already used by another client, so this copy is spent.*a login's other pair stays valid.*Set a new CALIMERO_AUTH_TOKEN/,
    );
    const store = await createTokenStore({
      stateDir: config.stateDir,
      nodeUrl: node.url,
      identity: credentialIdentity("token", config),
    });
    // Core revokes nothing for a reused login token (jwt.rs revoke_token_family): another process's pair in the
    // shared store stays.
    assert.notEqual(await store.read(), null, "stored tokens kept");
  } finally {
    await node.close();
  }
});

Deno.test("the handoff token is sent only to the node agent.json names", async () => {
  const node = fakeAuthNode();
  try {
    const handoffPair = node.mint();
    const envPair = node.mint(2);
    const handoff: Handoff = {
      nodeUrl: "http://localhost:1",
      accessToken: handoffPair.access_token,
      refreshToken: handoffPair.refresh_token,
    };
    const config = await makeConfig({ nodeUrl: node.url, authToken: envPair.access_token });
    const conn = await connectNode(config, { handoff });
    assert.equal(conn.authMode, "token");
    await conn.client.admin.listApplications();
    assert.deepEqual(node.stats.headers, [`Bearer ${envPair.access_token}`]);
  } finally {
    await node.close();
  }
});

Deno.test("handoff mode uses agent.json's token and picks up a new agent.json after a revocation", async () => {
  const node = fakeAuthNode();
  try {
    const config = await makeConfig({});
    const first = node.mint();
    await writeHandoff(config, node.url, first);
    const conn = await connectNode(config);
    assert.equal(conn.discoverySource, "handoff");
    assert.equal(conn.authMode, "handoff");
    await conn.client.admin.listApplications();
    assert.equal(node.stats.headers.at(-1), `Bearer ${first.access_token}`);

    node.revoke(first.access_token);
    await captureStderr(() =>
      assert.rejects(
        conn.client.admin.listApplications(),
        (err: NodeHttpError) => err.authError === "token_revoked",
      )
    );
    const second = node.mint(2);
    await writeHandoff(config, node.url, second); // the user reconnects the agent in the desktop app
    await conn.client.admin.listApplications();
    assert.equal(node.stats.headers.at(-1), `Bearer ${second.access_token}`);
  } finally {
    await node.close();
  }
});

Deno.test("in handoff mode an expired token is replaced by a newer agent.json before refreshing", async () => {
  const node = fakeAuthNode();
  try {
    const config = await makeConfig({});
    const write = (pair: { access_token: string; refresh_token: string }) =>
      writeHandoff(config, node.url, pair);
    await write(node.mint());
    const conn = await connectNode(config);
    await conn.client.admin.listApplications();
    node.expireTokens();
    const fresh = node.mint(2);
    await write(fresh);
    await conn.client.admin.listApplications();
    assert.equal(node.stats.refreshes, 0);
    assert.equal(node.stats.headers.at(-1), `Bearer ${fresh.access_token}`);
  } finally {
    await node.close();
  }
});

// ---- against the simulated node --------------------------------------------------------------------------

// This file doubles as a child process: `deno run src/node/node_test.ts <config json> <barrier url>` connects,
// waits at the barrier with the others, then makes one guarded call.
async function childMain([configJson, barrier]: string[]): Promise<void> {
  const conn = await connectNode(JSON.parse(configJson), { handoff: null });
  await (await fetch(barrier)).text();
  await conn.client.admin.listApplications();
  Deno.stdout.writeSync(new TextEncoder().encode("ok"));
}

if (import.meta.main) await childMain(Deno.args);

/** An HTTP barrier: every request waits until `count` have arrived. */
function barrier(count: number) {
  let arrived = 0;
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => open = resolve);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async () => {
    if (++arrived >= count) open();
    await opened;
    return new Response("go");
  });
  return { url: `http://127.0.0.1:${server.addr.port}/`, close: () => server.shutdown() };
}

Deno.test("sim node: a session in credentials mode logs in once and refreshes once for concurrent calls", async () => {
  const sim = await startSimNode({ apps: [], auth: { username: "admin", password: "secret" } });
  try {
    const config = await makeConfig({ nodeUrl: sim.url, username: "admin", password: "secret" });
    const session = createSession(config, (c) => connectNode(c, { handoff: null }));
    await session.admin.listApplications();
    assert.equal(session.info().authMode, "credentials");
    sim.expireTokens();
    await Promise.all(Array.from({ length: 8 }, () => session.admin.listApplications()));
    assert.deepEqual(
      { logins: sim.stats.logins, refreshes: sim.stats.refreshes, reuse: sim.stats.reuseDetected },
      { logins: 1, refreshes: 1, reuse: 0 },
    );
  } finally {
    await sim.close();
  }
});

Deno.test("sim node: 8 processes with one expired token refresh it once and all succeed", async () => {
  const sim = await startSimNode({ apps: [], auth: { username: "admin", password: "secret" } });
  const gate = barrier(8);
  try {
    const config = await makeConfig({ nodeUrl: sim.url, username: "admin", password: "secret" });
    await (await connectNode(config, { handoff: null })).client.admin.listApplications();
    sim.expireTokens();
    const children = Array.from({ length: 8 }, () =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-read",
          "--allow-write",
          "--allow-net",
          import.meta.url,
          JSON.stringify(config),
          gate.url,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output());
    const outputs = await Promise.all(children);
    for (const o of outputs) {
      assert.equal(new TextDecoder().decode(o.stdout), "ok", new TextDecoder().decode(o.stderr));
    }
    assert.deepEqual(
      { logins: sim.stats.logins, refreshes: sim.stats.refreshes, reuse: sim.stats.reuseDetected },
      { logins: 1, refreshes: 1, reuse: 0 },
    );
  } finally {
    await gate.close();
    await sim.close();
  }
});

Deno.test("sim node: revoked tokens are dropped and credentials log in again on the next call", async () => {
  const sim = await startSimNode({ apps: [], auth: { username: "admin", password: "secret" } });
  try {
    const config = await makeConfig({ nodeUrl: sim.url, username: "admin", password: "secret" });
    const conn = await connectNode(config, { handoff: null });
    await conn.client.admin.listApplications();
    sim.revokeTokens();
    const { stderr } = await captureStderr(() =>
      assert.rejects(
        conn.client.admin.listApplications(),
        (err: NodeHttpError) => err.authError === "token_revoked",
      )
    );
    assert.match(stderr, /token_revoked/);
    await conn.client.admin.listApplications();
    assert.equal(sim.stats.logins, 2);
  } finally {
    await sim.close();
  }
});

Deno.test("sim node: a handoff pair is used for its node and refreshed when it expires", async () => {
  const sim = await startSimNode({ apps: [], auth: { username: "admin", password: "secret" } });
  try {
    const config = await makeConfig({});
    const pair = sim.issueTokens();
    await writeHandoff(config, sim.url, pair);
    const session = createSession(config);
    assert.deepEqual(await session.connect(), {
      url: sim.url,
      nodeName: null,
      discoverySource: "handoff",
      authMode: "handoff",
    });
    await session.admin.listApplications();
    sim.expireTokens();
    await session.admin.listApplications();
    assert.deepEqual({ logins: sim.stats.logins, refreshes: sim.stats.refreshes }, {
      logins: 0,
      refreshes: 1,
    });
  } finally {
    await sim.close();
  }
});
