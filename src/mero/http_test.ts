import assert from "assert";
import { type AuthProvider, createHttp, NodeHttpError } from "./http.ts";
import { isValidTraceparent } from "../lib/traceparent.ts";
import { parseRetryAfter } from "./http_error.ts";
import { fakeFetch, hangUntilAborted, jsonResponse } from "../testing/fake_fetch.ts";

function rejected(promise: Promise<unknown>): Promise<NodeHttpError> {
  return promise.then(
    () => assert.fail("expected the request to fail"),
    (error) => {
      assert.ok(error instanceof NodeHttpError, `expected NodeHttpError, got ${error}`);
      return error;
    },
  );
}

Deno.test("paths are appended to a base URL that carries a path prefix", async () => {
  const fake = fakeFetch(() => jsonResponse({ data: { status: "alive" } }));
  const http = createHttp({ baseUrl: "http://h:1/node1/", fetch: fake.fetch });
  assert.equal(http.baseUrl, "http://h:1/node1");
  await http.request({
    method: "GET",
    path: "/admin-api/health",
    query: { a: "x y", b: undefined },
  });
  assert.equal(fake.requests[0].url, "http://h:1/node1/admin-api/health?a=x+y");
});

Deno.test("a non-HTTP base URL is rejected with the expected form", () => {
  assert.throws(() => createHttp({ baseUrl: "localhost:2528" }), /http:\/\//);
  assert.throws(() => createHttp({ baseUrl: "not a url" }), /not a valid URL/);
});

Deno.test("JSON bodies carry application/json and POST without a body sends {}", async () => {
  const fake = fakeFetch(() => jsonResponse({ data: null }));
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  await http.request({ method: "POST", path: "/a" });
  await http.request({ method: "DELETE", path: "/b", json: {} });
  await http.request({ method: "DELETE", path: "/c" });
  await http.request({ method: "PUT", path: "/d", json: { n: 2n ** 64n } });
  const [post, delWithBody, delBare, put] = fake.requests;
  assert.equal(post.headers.get("content-type"), "application/json");
  assert.equal(post.body, "{}");
  assert.equal(delWithBody.headers.get("content-type"), "application/json");
  assert.equal(delWithBody.body, "{}");
  assert.equal(delBare.headers.get("content-type"), null);
  assert.equal(delBare.body, "");
  assert.equal(put.body, '{"n":18446744073709551616}');
});

Deno.test("raw bytes go out as application/octet-stream and come back as bytes", async () => {
  const fake = fakeFetch((req) => new Response(req.bytes.slice().reverse()));
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  const out = await http.request<Uint8Array>({
    method: "PUT",
    path: "/blobs",
    bytes: new Uint8Array([1, 2, 3]),
    response: "bytes",
  });
  assert.equal(fake.requests[0].headers.get("content-type"), "application/octet-stream");
  assert.deepEqual([...fake.requests[0].bytes], [1, 2, 3]);
  assert.deepEqual([...out], [3, 2, 1]);
});

Deno.test("envelopes: data is unwrapped, flat bodies pass, empty 2xx bodies are null", async () => {
  const bodies = [
    () => jsonResponse({ data: { x: 1 } }),
    () => jsonResponse({ members: [] }),
    () => new Response(null, { status: 204 }),
    () => new Response("", { status: 200 }),
    () => jsonResponse({ data: 9223372036854775807n.toString() }),
  ];
  let i = 0;
  const fake = fakeFetch(() => bodies[i++]());
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  assert.deepEqual(await http.request({ method: "GET", path: "/a" }), { x: 1 });
  assert.deepEqual(await http.request({ method: "GET", path: "/b" }), { members: [] });
  assert.equal(await http.request({ method: "DELETE", path: "/c" }), null);
  assert.equal(await http.request({ method: "GET", path: "/d" }), null);
  assert.equal(await http.request({ method: "GET", path: "/e" }), "9223372036854775807");
});

Deno.test("big integers in responses arrive exact", async () => {
  const fake = fakeFetch(() => new Response('{"data":{"n":9223372036854775807}}'));
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  assert.deepEqual(await http.request({ method: "GET", path: "/a" }), { n: 9223372036854775807n });
});

Deno.test("the four error shapes keep status, body, auth header and retry delay", async () => {
  const cases: Array<
    { response: () => Response; status: number; body: string; auth: string | null }
  > = [
    {
      response: () => jsonResponse({ error: "Application not found" }, 404),
      status: 404,
      body: '{"error":"Application not found"}',
      auth: null,
    },
    {
      response: () => new Response("failed to download", { status: 500 }),
      status: 500,
      body: "failed to download",
      auth: null,
    },
    {
      response: () =>
        new Response(null, { status: 403, headers: { "x-auth-error": "permission_denied" } }),
      status: 403,
      body: "",
      auth: "permission_denied",
    },
    { response: () => new Response(null, { status: 404 }), status: 404, body: "", auth: null },
  ];
  for (const c of cases) {
    const fake = fakeFetch(c.response);
    const http = createHttp({ baseUrl: "http://u:pw@h:1/p?token=abc", fetch: fake.fetch });
    const error = await rejected(http.request({ method: "GET", path: "/admin-api/x" }));
    assert.equal(error.status, c.status);
    assert.equal(error.body, c.body);
    assert.equal(error.authError, c.auth);
    assert.equal(error.method, "GET");
    assert.equal(error.path, "/admin-api/x");
    assert.equal(error.url, "http://h:1/p/admin-api/x");
    assert.ok(!error.message.includes("pw") && !error.message.includes("abc"));
  }
});

Deno.test("a 429 carries Retry-After in seconds", async () => {
  const fake = fakeFetch(() =>
    new Response(null, { status: 429, headers: { "retry-after": "42" } })
  );
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  const error = await rejected(http.request({ method: "POST", path: "/auth/token" }));
  assert.equal(error.retryAfter, 42);
  assert.equal(parseRetryAfter(new Date(61_000).toUTCString(), 0), 61);
  assert.equal(parseRetryAfter("soon"), null);
});

Deno.test("a 2xx body that is not JSON is an error naming the endpoint", async () => {
  const fake = fakeFetch(() => new Response("<html>", { status: 200 }));
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  const error = await rejected(http.request({ method: "GET", path: "/admin-api/health" }));
  assert.equal(error.status, 200);
  assert.match(error.message, /GET \/admin-api\/health.*not JSON/);
});

Deno.test("a timeout becomes status 0 with the timeout in the cause", async () => {
  const fake = fakeFetch((_req, signal) => hangUntilAborted(signal));
  const http = createHttp({ baseUrl: "http://h:1", timeoutMs: 60_000, fetch: fake.fetch });
  const error = await rejected(
    http.request({ method: "GET", path: "/slow", call: { timeoutMs: 20 } }),
  );
  assert.equal(error.status, 0);
  assert.equal(error.timedOut, true);
  assert.match(error.message, /cannot reach the node at http:\/\/h:1: timed out after 20 ms/);
});

Deno.test("an endpoint default timeout applies unless the call overrides it", async () => {
  const fake = fakeFetch((_req, signal) => hangUntilAborted(signal));
  const http = createHttp({ baseUrl: "http://h:1", timeoutMs: 60_000, fetch: fake.fetch });
  const error = await rejected(http.request({ method: "GET", path: "/slow", timeoutMs: 15 }));
  assert.match(error.message, /timed out after 15 ms/);
});

Deno.test("a caller abort becomes status 0 and is not reported as a timeout", async () => {
  const fake = fakeFetch((_req, signal) => hangUntilAborted(signal));
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  const controller = new AbortController();
  const pending = rejected(
    http.request({ method: "GET", path: "/x", call: { signal: controller.signal } }),
  );
  controller.abort(new Error("cancelled by the client"));
  const error = await pending;
  assert.equal(error.status, 0);
  assert.equal(error.timedOut, false);
  assert.match(error.message, /cancelled by the client/);
});

Deno.test("a refused connection becomes status 0 without the query string", async () => {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    () => new Response(),
  );
  const port = server.addr.port;
  await server.shutdown();
  const http = createHttp({ baseUrl: `http://127.0.0.1:${port}` });
  const error = await rejected(
    http.request({ method: "GET", path: "/admin-api/health", query: { token: "abc" } }),
  );
  assert.equal(error.status, 0);
  assert.equal(error.url, `http://127.0.0.1:${port}/admin-api/health`);
  assert.match(error.message, /^cannot reach the node at http:\/\/127\.0\.0\.1:\d+: .*refused/i);
  assert.ok(!error.message.includes("abc"));
});

Deno.test("traceparent is forwarded only when well-formed and non-zero", async () => {
  const good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  const cases: Array<[string, boolean]> = [
    [good, true],
    ["00-00000000000000000000000000000000-00f067aa0ba902b7-01", false],
    ["00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false],
    ["00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false],
    ["ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false],
    ["garbage", false],
  ];
  for (const [value, forwarded] of cases) {
    assert.equal(isValidTraceparent(value), forwarded, value);
    const fake = fakeFetch(() => jsonResponse({ data: null }));
    const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
    await http.request({ method: "GET", path: "/x", call: { traceparent: value } });
    assert.equal(fake.requests[0].headers.get("traceparent"), forwarded ? value : null, value);
  }
});

function fakeAuth(tokens: string[], refreshOk = true) {
  let current = 0;
  const auth = {
    refreshed: [] as string[],
    why: [] as string[],
    invalidated: [] as string[],
    header: () => Promise.resolve(`Bearer ${tokens[current]}`),
    refresh(failed: string, why: "expired" | "rejected"): Promise<boolean> {
      auth.refreshed.push(failed);
      auth.why.push(why);
      if (refreshOk) current++;
      return Promise.resolve(refreshOk);
    },
    invalidate(reason: "token_revoked"): Promise<void> {
      auth.invalidated.push(reason);
      return Promise.resolve();
    },
  } satisfies AuthProvider & Record<string, unknown>;
  return auth;
}

function authResponse(status: number, authError?: string): Response {
  return new Response(null, { status, headers: authError ? { "x-auth-error": authError } : {} });
}

Deno.test("token_expired triggers one refresh and exactly one retry with the new header", async () => {
  const fake = fakeFetch((req) =>
    req.headers.get("authorization") === "Bearer old"
      ? authResponse(401, "token_expired")
      : jsonResponse({ data: "ok" })
  );
  const auth = fakeAuth(["old", "new"]);
  const http = createHttp({ baseUrl: "http://h:1", auth, fetch: fake.fetch });
  assert.equal(await http.request({ method: "POST", path: "/x", json: { a: 1 } }), "ok");
  assert.deepEqual(auth.refreshed, ["Bearer old"]);
  assert.deepEqual(fake.requests.map((r) => r.headers.get("authorization")), [
    "Bearer old",
    "Bearer new",
  ]);
  assert.equal(fake.requests[1].body, '{"a":1}');
});

Deno.test("a retry that is still token_expired is not refreshed again", async () => {
  const fake = fakeFetch(() => authResponse(401, "token_expired"));
  const auth = fakeAuth(["a", "b", "c"]);
  const http = createHttp({ baseUrl: "http://h:1", auth, fetch: fake.fetch });
  const error = await rejected(http.request({ method: "GET", path: "/x" }));
  assert.equal(error.authError, "token_expired");
  assert.equal(auth.refreshed.length, 1);
  assert.equal(fake.requests.length, 2);
});

Deno.test("a failed refresh does not retry and surfaces the 401", async () => {
  const fake = fakeFetch(() => authResponse(401, "token_expired"));
  const auth = fakeAuth(["a"], false);
  const http = createHttp({ baseUrl: "http://h:1", auth, fetch: fake.fetch });
  const error = await rejected(http.request({ method: "GET", path: "/x" }));
  assert.equal(error.status, 401);
  assert.equal(fake.requests.length, 1);
});

Deno.test("a bare 401 (core's answer for a key it no longer knows) asks the provider once, as rejected", async () => {
  const fake = fakeFetch((req) =>
    req.headers.get("authorization") === "Bearer old"
      ? authResponse(401)
      : jsonResponse({ data: "ok" })
  );
  const auth = fakeAuth(["old", "new"]);
  const http = createHttp({ baseUrl: "http://h:1", auth, fetch: fake.fetch });
  assert.equal(await http.request({ method: "GET", path: "/x" }), "ok");
  assert.deepEqual([auth.refreshed, auth.why], [["Bearer old"], ["rejected"]]);
  const declined = fakeAuth(["a"], false);
  const refused = createHttp({
    baseUrl: "http://h:1",
    auth: declined,
    fetch: fakeFetch(() => authResponse(401)).fetch,
  });
  assert.equal((await rejected(refused.request({ method: "GET", path: "/x" }))).status, 401);
  assert.deepEqual(declined.why, ["rejected"]);
});

Deno.test("refresh is never called for other auth errors", async () => {
  const cases: Array<[number, string | undefined, string[]]> = [
    [401, "token_reuse", []],
    [403, "token_revoked", ["token_revoked"]],
    [403, "permission_denied", []],
    [403, "invalid_node", []],
    [401, "something_else", []],
  ];
  for (const [status, header, invalidated] of cases) {
    const fake = fakeFetch(() => authResponse(status, header));
    const auth = fakeAuth(["a", "b"]);
    const http = createHttp({ baseUrl: "http://h:1", auth, fetch: fake.fetch });
    const error = await rejected(http.request({ method: "GET", path: "/x" }));
    assert.equal(error.status, status);
    assert.equal(auth.refreshed.length, 0, `${status} ${header}`);
    assert.deepEqual(auth.invalidated, invalidated, `${status} ${header}`);
    assert.equal(fake.requests.length, 1);
  }
});

Deno.test("auth: false sends no Authorization header and never refreshes", async () => {
  const fake = fakeFetch(() => authResponse(401, "token_expired"));
  const auth = fakeAuth(["a", "b"]);
  const http = createHttp({ baseUrl: "http://h:1", auth, fetch: fake.fetch });
  await rejected(http.request({ method: "POST", path: "/auth/refresh", auth: false }));
  assert.equal(fake.requests[0].headers.get("authorization"), null);
  assert.equal(auth.refreshed.length, 0);
});

/** A 200 answer of `bytes` bytes of JSON, streamed in 64 KiB chunks, with or without content-length. */
function bigAnswer(bytes: number, declared: boolean): Response {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      const n = Math.min(chunk.length, bytes - sent);
      controller.enqueue(chunk.subarray(0, n));
      sent += n;
    },
  });
  return new Response(stream, {
    headers: declared ? { "content-length": String(bytes) } : {},
  });
}

Deno.test("an answer over 16 MiB, declared or streamed, is an error naming the endpoint and the limit", async () => {
  for (const declared of [true, false]) {
    const fake = fakeFetch(() => bigAnswer(16 * 1024 * 1024 + 1, declared));
    const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
    const error = await rejected(http.request({ method: "GET", path: "/admin-api/applications" }));
    assert.equal(error.status, 200);
    assert.equal(error.sizeLimit, 16 * 1024 * 1024);
    assert.equal(
      error.message,
      "the node's answer to GET /admin-api/applications is larger than 16 MiB; mero-mcp stops reading there. An answer this large is not expected: check that http://h:1 is the Calimero node you meant.",
    );
  }
});

Deno.test("a request's maxBytes raises or lowers the cap; exactly the cap is read", async () => {
  const fake = fakeFetch(() => bigAnswer(20 * 1024 * 1024, false));
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  const bytes = await http.request<Uint8Array>({
    method: "GET",
    path: "/admin-api/blobs/B",
    response: "bytes",
    maxBytes: 20 * 1024 * 1024,
  });
  assert.equal(bytes.length, 20 * 1024 * 1024);
  const error = await rejected(
    http.request({ method: "GET", path: "/admin-api/blobs/B", response: "bytes", maxBytes: 1000 }),
  );
  assert.match(error.message, /GET \/admin-api\/blobs\/B is larger than 1000 bytes/);
});

Deno.test("an error answer over the cap keeps its status and auth header, so auth rules still apply", async () => {
  const fake = fakeFetch(() =>
    new Response(bigAnswer(17 * 1024 * 1024, true).body, {
      status: 403,
      headers: { "x-auth-error": "token_revoked", "content-length": String(17 * 1024 * 1024) },
    })
  );
  let invalidated = "";
  const http = createHttp({
    baseUrl: "http://h:1",
    fetch: fake.fetch,
    auth: {
      header: () => Promise.resolve("Bearer a"),
      refresh: () => Promise.resolve(false),
      invalidate: (reason) => Promise.resolve(void (invalidated = reason)),
    },
  });
  const error = await rejected(http.request({ method: "GET", path: "/admin-api/x" }));
  assert.equal(error.status, 403);
  assert.equal(error.authError, "token_revoked");
  assert.equal(error.body, "");
  assert.equal(invalidated, "token_revoked");
});

/** A shape like admin's: an object with an `apps` list. */
const APPS_SHAPE = {
  expected: 'an object with an "apps" list',
  test: (v: unknown) => Array.isArray((v as { apps?: unknown } | null)?.apps),
};

Deno.test("expect: a 2xx payload of another shape is an error quoting what was expected and the body", async () => {
  const cases = [
    { body: '{"data":"xxx"}', what: "an unexpected body" },
    { body: '{"data":{"apps":{}}}', what: "an unexpected body" },
    { body: '{"data":null}', what: "an unexpected body" },
    { body: "", what: "an empty body" },
  ];
  for (const c of cases) {
    const fake = fakeFetch(() => new Response(c.body));
    const http = createHttp({ baseUrl: "http://h:1/p?token=abc", fetch: fake.fetch });
    const error = await rejected(
      http.request({ method: "GET", path: "/admin-api/applications", expect: APPS_SHAPE }),
    );
    assert.equal(error.status, 200);
    assert.equal(error.expected, 'an object with an "apps" list');
    const head =
      `GET /admin-api/applications: the node answered HTTP 200 with ${c.what} (expected an object with an "apps" list). Check that http://h:1 is a Calimero node of a version mero-mcp supports.`;
    assert.equal(error.message, c.body === "" ? head : `${head} Body: ${c.body}`);
  }
});

Deno.test("expect: the body quoted in a shape error stops at 300 characters", async () => {
  const text = JSON.stringify({ data: "y".repeat(1000) });
  const fake = fakeFetch(() => new Response(text));
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  const error = await rejected(
    http.request({ method: "GET", path: "/a", expect: { expected: "x", test: () => false } }),
  );
  assert.ok(error.message.endsWith(` Body: ${text.slice(0, 300)}`));
});

Deno.test("expect: a payload of the right shape passes through unchanged", async () => {
  const fake = fakeFetch(() => jsonResponse({ data: { apps: [] } }));
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  const answer = await http.request({ method: "GET", path: "/a", expect: APPS_SHAPE });
  assert.deepEqual(answer, { apps: [] });
});

Deno.test("with a memo, a byte-identical answer is the same payload object; a changed one is parsed anew", async () => {
  let body = { data: { apps: [{ id: "A" }] } };
  let status = 200;
  const fake = fakeFetch(() => jsonResponse(body, status));
  const http = createHttp({ baseUrl: "http://h:1", fetch: fake.fetch });
  const memo = { text: null, value: null };
  const first = await http.request({ method: "GET", path: "/apps", memo });
  assert.equal(await http.request({ method: "GET", path: "/apps", memo }), first);
  body = { data: { apps: [{ id: "B" }] } };
  const second = await http.request({ method: "GET", path: "/apps", memo });
  assert.notEqual(second, first);
  assert.deepEqual(second, { apps: [{ id: "B" }] });
  status = 500;
  await rejected(http.request({ method: "GET", path: "/apps", memo }));
  status = 200;
  assert.equal(
    await http.request({ method: "GET", path: "/apps", memo }),
    second,
    "an error leaves it as it was",
  );
});

Deno.test("stream: opens at the origin with the token and Last-Event-ID, refreshes once on expiry, and hands back the body", async () => {
  const auth = fakeAuth(["old", "new"]);
  const fake = fakeFetch((r) =>
    r.headers.get("authorization") === "Bearer old"
      ? authResponse(401, "token_expired")
      : new Response("event: message\ndata: {}\n\n", {
        headers: { "content-type": "text/event-stream" },
      })
  );
  const http = createHttp({ baseUrl: "http://h:1/node1", fetch: fake.fetch, auth });
  const response = await http.stream({
    path: "/sse",
    atRoot: true,
    headers: { "last-event-id": "5-3" },
    signal: new AbortController().signal,
  });
  assert.equal(await response.text(), "event: message\ndata: {}\n\n");
  assert.deepEqual(fake.requests.map((r) => r.url), ["http://h:1/sse", "http://h:1/sse"]);
  assert.equal(fake.requests[1].headers.get("authorization"), "Bearer new");
  assert.equal(fake.requests[1].headers.get("last-event-id"), "5-3");
  assert.equal(fake.requests[1].headers.get("accept"), "text/event-stream");
  assert.deepEqual(auth.why, ["expired"]);
});

Deno.test("stream: a refusal is a NodeHttpError with the node's words; waiting for headers times out", async () => {
  const refusing = createHttp({
    baseUrl: "http://h:1",
    fetch: fakeFetch(() => new Response("SSE is disabled", { status: 404 })).fetch,
  });
  const error = await rejected(
    refusing.stream({ path: "/sse", signal: new AbortController().signal }),
  );
  assert.equal(error.status, 404);
  assert.match(error.message, /SSE is disabled/);
  const hanging = createHttp({
    baseUrl: "http://h:1",
    fetch: fakeFetch((_r, signal) => hangUntilAborted(signal)).fetch,
  });
  const slow = await rejected(
    hanging.stream({ path: "/sse", timeoutMs: 50, signal: new AbortController().signal }),
  );
  assert.equal(slow.status, 0);
  assert.equal(slow.timedOut, true);
});
