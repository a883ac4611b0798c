// The HTTP handler without a socket: gates (Host, Origin, token, path, size), both eras, and instance teardown.

import assert from "assert";
import { Server } from "@modelcontextprotocol/server";
import { createHttpHandler, equalBytes, MAX_BODY_BYTES, tokenVerifier } from "./http_mode.ts";

const TOKEN = "s3cret-token";

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "unit", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A handler over a tiny factory that counts the instances still open. */
function setup(token: string | null = null) {
  let open = 0;
  let built = 0;
  const factory = () => {
    const server = new Server({ name: "unit", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", () => ({ tools: [] }));
    built++;
    open++;
    server.onclose = () => open--;
    return server;
  };
  const handler = createHttpHandler({ factory, token });
  return { handler, open: () => open, built: () => built };
}

interface Shape {
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

function request(shape: Shape): Request {
  const body = shape.body === undefined
    ? undefined
    : typeof shape.body === "string"
    ? shape.body
    : JSON.stringify(shape.body);
  return new Request(`http://127.0.0.1:7331${shape.path ?? "/mcp"}`, {
    method: shape.method ?? (body === undefined ? "GET" : "POST"),
    headers: {
      host: "127.0.0.1:7331",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...shape.headers,
    },
    body,
  });
}

const legacyInitialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "unit", version: "1" },
  },
};

const modernList = {
  body: { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: MODERN_META } },
  headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
};

const GATES: { name: string; token?: string; shape: Shape; status: number }[] = [
  {
    name: "a non-loopback Host",
    shape: { body: legacyInitialize, headers: { host: "evil.example" } },
    status: 403,
  },
  {
    name: "a loopback name resolving elsewhere is still judged by name",
    shape: { body: legacyInitialize, headers: { host: "localhost.evil.example:7331" } },
    status: 403,
  },
  {
    name: "a non-loopback Origin",
    shape: { body: legacyInitialize, headers: { origin: "http://evil.example" } },
    status: 403,
  },
  {
    name: "the opaque null Origin",
    shape: { body: legacyInitialize, headers: { origin: "null" } },
    status: 403,
  },
  {
    name: "a loopback Origin and localhost Host",
    shape: {
      body: legacyInitialize,
      headers: { origin: "http://localhost:3000", host: "localhost:7331" },
    },
    status: 200,
  },
  {
    name: "an IPv6 loopback Host",
    shape: { body: legacyInitialize, headers: { host: "[::1]:7331" } },
    status: 200,
  },
  { name: "another path", shape: { path: "/other", body: legacyInitialize }, status: 404 },
  { name: "a path below /mcp", shape: { path: "/mcp/x", body: legacyInitialize }, status: 404 },
  { name: "a GET (no event stream here)", shape: { method: "GET" }, status: 405 },
  { name: "a DELETE (no session here)", shape: { method: "DELETE" }, status: 405 },
  {
    name: "a 2025-era POST accepting only JSON (the SDK's rule)",
    shape: { body: legacyInitialize, headers: { accept: "application/json" } },
    status: 406,
  },
  {
    name: "a POST that is not JSON",
    shape: { body: legacyInitialize, headers: { "content-type": "text/plain" } },
    status: 415,
  },
  {
    name: "no token when one is required",
    token: TOKEN,
    shape: { body: legacyInitialize },
    status: 401,
  },
  {
    name: "a wrong token",
    token: TOKEN,
    shape: { body: legacyInitialize, headers: { authorization: "Bearer s3cret-tokeN" } },
    status: 401,
  },
  {
    name: "a token prefix",
    token: TOKEN,
    shape: { body: legacyInitialize, headers: { authorization: "Bearer s3cret" } },
    status: 401,
  },
  {
    name: "the right token under another scheme",
    token: TOKEN,
    shape: { body: legacyInitialize, headers: { authorization: `Basic ${TOKEN}` } },
    status: 401,
  },
  {
    name: "the right token",
    token: TOKEN,
    shape: { body: legacyInitialize, headers: { authorization: `Bearer ${TOKEN}` } },
    status: 200,
  },
  {
    name: "the rebinding check before the token check",
    token: TOKEN,
    shape: {
      body: legacyInitialize,
      headers: { authorization: `Bearer ${TOKEN}`, host: "evil.example" },
    },
    status: 403,
  },
  {
    name: "another path without the token (auth comes first)",
    token: TOKEN,
    shape: { path: "/other" },
    status: 401,
  },
];

for (const gate of GATES) {
  Deno.test(`the handler answers ${gate.status} for ${gate.name}`, async () => {
    const { handler, open } = setup(gate.token ?? null);
    const response = await handler.fetch(request(gate.shape));
    await response.body?.cancel();
    assert.equal(response.status, gate.status);
    assert.equal(open(), 0, "no instance left open");
  });
}

Deno.test("a 2025-era initialize gets one JSON body and no session id", async () => {
  const { handler, open, built } = setup();
  const response = await handler.fetch(request({ body: legacyInitialize }));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.equal(response.headers.get("mcp-session-id"), null);
  const body = await response.json();
  assert.equal(body.id, 1);
  assert.equal(body.result.serverInfo.name, "unit");
  assert.equal(built(), 1, "one instance per request");
  assert.equal(open(), 0);
});

Deno.test("a 2026-07-28 tools/list gets one JSON body from a fresh instance", async () => {
  const { handler, open, built } = setup();
  for (let i = 0; i < 3; i++) {
    const response = await handler.fetch(request(modernList));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/json");
    const body = await response.json();
    assert.deepEqual(body.result.tools, []);
  }
  assert.equal(built(), 3);
  assert.equal(open(), 0);
});

Deno.test("a 2025-era notification is acknowledged with 202", async () => {
  const { handler, open } = setup();
  const response = await handler.fetch(
    request({ body: { jsonrpc: "2.0", method: "notifications/initialized" } }),
  );
  await response.body?.cancel();
  assert.equal(response.status, 202);
  assert.equal(open(), 0);
});

for (const era of ["2025-11-25", "2026-07-28"] as const) {
  Deno.test(`[${era}] a body over 16 MiB gets 413 and builds no instance`, async () => {
    const { handler, built } = setup();
    const padding = "x".repeat(MAX_BODY_BYTES);
    const body = era === "2026-07-28"
      ? { ...modernList.body, params: { _meta: MODERN_META, padding } }
      : { ...legacyInitialize, params: { ...legacyInitialize.params, padding } };
    const headers = era === "2026-07-28" ? modernList.headers : {};
    const response = await handler.fetch(request({ body, headers }));
    await response.body?.cancel();
    assert.equal(response.status, 413);
    assert.equal(built(), 0);
  });
}

Deno.test("a body just under 16 MiB is served", async () => {
  const { handler } = setup();
  const base = JSON.stringify(legacyInitialize);
  const filler = "x".repeat(MAX_BODY_BYTES - base.length - 16);
  const padded = base.slice(0, -2) + `,"padding":"${filler}"}}`;
  assert.ok(new TextEncoder().encode(padded).length <= MAX_BODY_BYTES);
  const response = await handler.fetch(request({ body: padded }));
  const text = await response.text();
  assert.equal(response.status, 200, text.slice(0, 300));
});

Deno.test("the token verifier accepts exactly the token and gives it no expiry", async () => {
  const verify = tokenVerifier(TOKEN);
  const info = await verify(TOKEN);
  assert.ok(info.expiresAt > Date.now() / 1000 + 10 * 365 * 86400);
  for (const wrong of ["", "s3cret-toke", "s3cret-token ", "S3cret-token", `${TOKEN}x`]) {
    await assert.rejects(verify(wrong), /does not match/);
  }
});

Deno.test("equalBytes compares whole arrays", () => {
  const cases: [number[], number[], boolean][] = [
    [[], [], true],
    [[1, 2, 3], [1, 2, 3], true],
    [[1, 2, 3], [1, 2, 4], false],
    [[1, 2, 3], [0, 2, 3], false],
    [[1, 2], [1, 2, 3], false],
  ];
  for (const [a, b, expected] of cases) {
    assert.equal(equalBytes(new Uint8Array(a), new Uint8Array(b)), expected, `${a} vs ${b}`);
  }
});

Deno.test("a factory failure answers 500 in both eras", async () => {
  const handler = createHttpHandler({
    factory: () => Promise.reject(new Error("catalog exploded")),
    token: null,
  });
  for (const shape of [{ body: legacyInitialize }, modernList]) {
    const response = await handler.fetch(request(shape));
    const body = await response.json();
    assert.equal(response.status, 500);
    assert.equal(body.error.code, -32603);
    assert.ok(!JSON.stringify(body).includes("exploded"), "internals stay in the log");
  }
});
