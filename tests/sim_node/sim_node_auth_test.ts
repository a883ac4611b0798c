// Embedded auth on the simulated node: the guard's answers, JWT-shaped tokens, refresh only after
// expiry, single-use refresh tokens (replay → token_reuse, family revoked), lockout after failures.

import assert from "assert";
import { APP_CLIENT_PERMISSIONS } from "./permissions.ts";
import type { SimNode, TokenPair } from "./mod.ts";
import { call, withSim } from "./testing.ts";

const AUTH = { username: "alice", password: "s3cret" };
const APPS = "/admin-api/applications";

function login(sim: SimNode, password = AUTH.password) {
  return call(sim, "POST", "/auth/token", {
    auth_method: "user_password",
    public_key: AUTH.username,
    client_name: "mero-mcp",
    timestamp: Math.floor(Date.now() / 1000),
    provider_data: { username: AUTH.username, password },
  });
}

async function pair(sim: SimNode): Promise<TokenPair> {
  const answer = await login(sim);
  assert.equal(answer.status, 200, answer.text);
  const body = answer.body as { data: TokenPair; error: null };
  assert.equal(body.error, null);
  return body.data;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const claims = (jwt: string) =>
  JSON.parse(atob(jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
const refresh = (sim: SimNode, p: TokenPair) => call(sim, "POST", "/auth/refresh", p);

Deno.test("the guard wants a bearer token; health stays public; missing or invalid is a bare 401", async () => {
  await withSim({ apps: [], auth: AUTH }, async (sim) => {
    assert.equal((await call(sim, "GET", "/admin-api/health")).status, 200);
    for (const headers of [{}, bearer("garbage"), { authorization: "Basic abc" }]) {
      const answer = await call(sim, "GET", APPS, undefined, headers);
      assert.deepEqual([answer.status, answer.text, answer.headers.get("x-auth-error")], [
        401,
        "",
        null,
      ]);
    }
    const rpc = await call(sim, "POST", "/jsonrpc", {});
    assert.equal(rpc.status, 401);
    const { access_token } = await pair(sim);
    assert.equal((await call(sim, "GET", APPS, undefined, bearer(access_token))).status, 200);
  });
});

Deno.test("tokens are JWT-shaped with sub, exp, iat, and each new pair has a larger iat", async () => {
  await withSim({ apps: [], auth: { ...AUTH, accessTtlSeconds: 60 } }, async (sim) => {
    const first = claims((await pair(sim)).access_token);
    const second = claims((await pair(sim)).access_token);
    assert.equal(first.sub, "alice");
    assert.equal(first.exp - first.iat, 60);
    assert.ok(Number.isInteger(first.iat) && second.iat > first.iat);
    assert.equal(sim.stats.logins, 2);
  });
});

Deno.test("an expired token gets token_expired; one refresh works; a replay is token_reuse and revokes a client key's family", async () => {
  await withSim({ apps: [], auth: AUTH }, async (sim) => {
    const first = sim.issueTokens(["admin"]);
    sim.expireTokens();
    const expired = await call(sim, "GET", APPS, undefined, bearer(first.access_token));
    assert.deepEqual([expired.status, expired.text, expired.headers.get("x-auth-error")], [
      401,
      "",
      "token_expired",
    ]);
    const renewed = await refresh(sim, first);
    assert.equal(renewed.status, 200);
    const second = (renewed.body as { data: TokenPair }).data;
    assert.ok(claims(second.access_token).iat > claims(first.access_token).iat);
    assert.equal(
      (await call(sim, "GET", APPS, undefined, bearer(second.access_token))).status,
      200,
    );
    const replay = await refresh(sim, first);
    assert.deepEqual([replay.status, replay.text, replay.headers.get("x-auth-error")], [
      401,
      "",
      "token_reuse",
    ]);
    const revoked = await call(sim, "GET", APPS, undefined, bearer(second.access_token));
    assert.deepEqual([revoked.status, revoked.headers.get("x-auth-error")], [403, "token_revoked"]);
    assert.deepEqual([sim.stats.refreshes, sim.stats.reuseDetected], [1, 1]);
  });
});

Deno.test("a replayed refresh token of a login (root key) is token_reuse, and the fresh pair keeps working", async () => {
  await withSim({ apps: [], auth: AUTH }, async (sim) => {
    const first = await pair(sim);
    sim.expireTokens();
    const second = ((await refresh(sim, first)).body as { data: TokenPair }).data;
    const replay = await refresh(sim, first);
    assert.deepEqual([replay.status, replay.headers.get("x-auth-error")], [401, "token_reuse"]);
    const still = await call(sim, "GET", APPS, undefined, bearer(second.access_token));
    assert.equal(still.status, 200, "core never revokes a root key on reuse");
  });
});

Deno.test("a refresh before expiry is refused and leaves the refresh token usable", async () => {
  await withSim({ apps: [], auth: AUTH }, async (sim) => {
    const tokens = await pair(sim);
    const early = await refresh(sim, tokens);
    assert.equal(early.status, 401);
    assert.match((early.body as { error: string }).error, /still valid/);
    sim.expireTokens();
    assert.equal((await refresh(sim, tokens)).status, 200);
  });
});

Deno.test("wrong credentials are 401s and too many give a 429 with Retry-After", async () => {
  await withSim(
    { apps: [], auth: { ...AUTH, maxFailedLogins: 3, lockoutSeconds: 7 } },
    async (sim) => {
      for (let i = 0; i < 3; i++) assert.equal((await login(sim, "wrong")).status, 401);
      const locked = await login(sim);
      assert.equal(locked.status, 429);
      assert.equal(locked.headers.get("retry-after"), "7");
      assert.equal(sim.stats.failedLogins, 3);
    },
  );
});

Deno.test("a scoped key gets 403 permission_denied on routes outside its permissions, the ABI route among them", async () => {
  await withSim({ apps: ["kv-store"], auth: AUTH }, async (sim) => {
    const scoped = sim.issueTokens(APP_CLIENT_PERMISSIONS);
    const kv = sim.appId("kv-store");
    const status = async (method: string, path: string, token = scoped.access_token) => {
      const answer = await call(sim, method, path, undefined, bearer(token));
      return [answer.status, answer.headers.get("x-auth-error")];
    };
    assert.deepEqual(await status("GET", APPS), [200, null]);
    assert.deepEqual(await status("GET", `${APPS}/${kv}`), [200, null]);
    assert.deepEqual(await status("GET", `${APPS}/${kv}/abi`), [403, "permission_denied"]);
    const blob = (sim.state.apps.get(kv)!).blob.bytecode;
    assert.deepEqual(
      await status("GET", `/admin-api/blobs/${blob}`),
      [200, null],
      "blob covers blob:get",
    );
    assert.deepEqual(await status("POST", "/admin-api/install-dev-application"), [
      403,
      "permission_denied",
    ]);
    const admin = sim.issueTokens();
    assert.deepEqual(await status("GET", `${APPS}/${kv}/abi`, admin.access_token), [200, null]);
  });
});

Deno.test("expiry is checked before revocation, and a revoked key's refresh is core's 500", async () => {
  await withSim({ apps: [], auth: AUTH }, async (sim) => {
    const tokens = sim.issueTokens();
    sim.revokeTokens();
    const revoked = await call(sim, "GET", APPS, undefined, bearer(tokens.access_token));
    assert.deepEqual([revoked.status, revoked.headers.get("x-auth-error")], [403, "token_revoked"]);
    sim.expireTokens();
    const expired = await call(sim, "GET", APPS, undefined, bearer(tokens.access_token));
    assert.deepEqual([expired.status, expired.headers.get("x-auth-error")], [401, "token_expired"]);
    const refreshed = await call(sim, "POST", "/auth/refresh", tokens);
    assert.equal(refreshed.status, 500);
    assert.match(refreshed.text, /Failed to refresh token: Invalid token: Key not found/);
  });
});

Deno.test("a node without embedded auth has no /auth routes and checks nothing", async () => {
  await withSim({ apps: [] }, async (sim) => {
    const answer = await login(sim);
    assert.deepEqual([answer.status, answer.text], [404, ""]);
    assert.equal((await call(sim, "GET", APPS)).status, 200);
    assert.throws(() => sim.expireTokens(), /without auth/);
  });
});
