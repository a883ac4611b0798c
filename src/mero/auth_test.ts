import assert from "assert";
import { decodeJwtClaims, login, refreshTokens } from "./auth.ts";
import { type AuthProvider, createHttp, NodeHttpError } from "./http.ts";
import { fakeFetch, jsonResponse } from "../testing/fake_fetch.ts";

function base64url(text: string): string {
  const binary = String.fromCharCode(...new TextEncoder().encode(text));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function jwt(claims: unknown): string {
  return `${base64url('{"alg":"HS256"}')}.${base64url(JSON.stringify(claims))}.sig`;
}

const neverAuth: AuthProvider = {
  header: () => Promise.resolve("Bearer should-not-be-sent"),
  refresh: () => Promise.reject(new Error("refresh must not be called")),
  invalidate: () => Promise.resolve(),
};

Deno.test("login posts user_password credentials to /auth/token at the node's root and returns the pair", async () => {
  const fake = fakeFetch(() =>
    jsonResponse({ data: { access_token: "A", refresh_token: "R" }, error: null })
  );
  const http = createHttp({ baseUrl: "http://h:1/node1", auth: neverAuth, fetch: fake.fetch });
  const before = Math.floor(Date.now() / 1000);
  const pair = await login(http, { username: "alice", password: "s3cret" });
  assert.deepEqual(pair, { accessToken: "A", refreshToken: "R" });
  const request = fake.requests[0];
  assert.equal(request.method, "POST");
  assert.equal(request.url, "http://h:1/auth/token", "/auth is not under the path prefix");
  assert.equal(request.headers.get("authorization"), null);
  assert.equal(request.headers.get("content-type"), "application/json");
  const body = JSON.parse(request.body);
  assert.deepEqual(Object.keys(body), [
    "auth_method",
    "public_key",
    "client_name",
    "timestamp",
    "provider_data",
  ]);
  assert.equal(body.auth_method, "user_password");
  assert.equal(body.public_key, "alice");
  assert.equal(body.client_name, "mero-mcp");
  assert.ok(body.timestamp >= before && body.timestamp <= before + 5);
  assert.deepEqual(body.provider_data, { username: "alice", password: "s3cret" });
});

Deno.test("refreshTokens posts both tokens snake_case without a bearer header", async () => {
  const fake = fakeFetch(() => jsonResponse({ data: { access_token: "A2", refresh_token: "R2" } }));
  const http = createHttp({ baseUrl: "http://h:1", auth: neverAuth, fetch: fake.fetch });
  const pair = await refreshTokens(http, { accessToken: "A", refreshToken: "R" });
  assert.deepEqual(pair, { accessToken: "A2", refreshToken: "R2" });
  assert.equal(fake.requests[0].url, "http://h:1/auth/refresh");
  assert.equal(fake.requests[0].body, '{"access_token":"A","refresh_token":"R"}');
  assert.equal(fake.requests[0].headers.get("authorization"), null);
});

Deno.test("a wrong password surfaces as a 401 NodeHttpError on /auth/token", async () => {
  const fake = fakeFetch(() => jsonResponse({ error: "Invalid credentials" }, 401));
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  await assert.rejects(
    login(http, { username: "a", password: "b" }),
    (e) => e instanceof NodeHttpError && e.status === 401 && e.path === "/auth/token",
  );
});

Deno.test("an answer without tokens is an error that names the endpoint", async () => {
  const fake = fakeFetch(() => jsonResponse({ data: null }));
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  await assert.rejects(login(http, { username: "a", password: "b" }), /POST \/auth\/token/);
});

Deno.test("decodeJwtClaims reads iat, exp and sub and rejects what is not a JWT", () => {
  const token = jwt({ iat: 100, exp: 3700, sub: "alice", extra: true });
  assert.deepEqual(decodeJwtClaims(token), { iat: 100, exp: 3700, sub: "alice" });
  assert.deepEqual(decodeJwtClaims(`Bearer ${token}`), { iat: 100, exp: 3700, sub: "alice" });
  assert.deepEqual(decodeJwtClaims(jwt({ iat: "x" })), {});
  assert.deepEqual(decodeJwtClaims(jwt({ sub: "ünïcode" })), { sub: "ünïcode" });
  for (const bad of ["", "a.b", "a.!!!.c", jwt([1, 2]), jwt(null), "x.eyJ.y"]) {
    assert.equal(decodeJwtClaims(bad), null, bad);
  }
});
