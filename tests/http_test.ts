// HTTP mode end to end: the real process with `--http`, the official client over streamable HTTP in both eras,
// the DNS-rebinding and token gates, the body limit, start-up refusals, stdin ignored, SIGTERM.

import assert from "assert";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  type Era,
  ERAS,
  firstText,
  isolatedEnv,
  LEGACY_OPENING,
  ROOT,
  serverCommand,
} from "./harness.ts";
import { rawHttp, startHttp } from "./http_harness.ts";

const TOKEN = "e2e-0123456789abcdef";

const INITIALIZE = JSON.stringify(LEGACY_OPENING[0]);

function post(url: string, headers: Record<string, string> = {}, body = INITIALIZE) {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
}

async function connectHttp(url: string, era: Era, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(token ? { authProvider: { token: () => Promise.resolve(token) } } : {}),
  });
  const client = new Client(
    { name: "mero-mcp-tests", version: "1.0.0" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(transport);
  return client;
}

for (const era of ERAS) {
  Deno.test(`[${era}] over HTTP the official client initializes, lists tools and calls node_status`, async () => {
    const server = await startHttp();
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = await connectHttp(server.url, era);
      try {
        assert.equal(client.getServerVersion()?.name, "mero-mcp");
        assert.equal(client.getNegotiatedProtocolVersion(), era);
        assert.ok((client.getInstructions() ?? "").includes("select_app"));
        // Stateless: no stream to send list-changed on, so the capability is not claimed.
        const caps = client.getServerCapabilities();
        assert.equal(caps?.tools?.listChanged, false);
        assert.equal(caps?.resources?.listChanged, false);
        const list = await client.listTools();
        assert.ok(list.tools.some((t) => t.name === "node_status"));
        const notAnswering = (list._meta as Record<string, unknown> | undefined)?.notAnswering;
        if (notAnswering !== undefined) {
          assert.ok(Array.isArray(notAnswering));
          assert.ok(notAnswering.every((entry) => typeof entry === "string"));
        }
        const result = await client.callTool({ name: "node_status", arguments: {} });
        assert.ok(Array.isArray(result.content));
        assert.ok(firstText(result).length > 0, "node_status says something");
      } finally {
        await client.close();
      }
    } finally {
      assert.equal(await server.stop(), 0, "SIGTERM exits 0");
    }
  });
}

Deno.test("over HTTP a non-loopback Host or Origin gets 403, other paths 404, oversized bodies 413", async () => {
  const server = await startHttp();
  try {
    const head = (host: string) => [
      "POST /mcp HTTP/1.1",
      `Host: ${host}`,
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
    ];
    assert.equal((await rawHttp(server.port, head("evil.example"), INITIALIZE)).status, 403);
    assert.equal(
      (await rawHttp(server.port, head(`evil.example:${server.port}`), INITIALIZE)).status,
      403,
    );
    assert.equal(
      (await rawHttp(server.port, head(`localhost:${server.port}`), INITIALIZE)).status,
      200,
    );

    const evil = await post(server.url, { origin: "http://evil.example" });
    await evil.body?.cancel();
    assert.equal(evil.status, 403);
    const local = await post(server.url, { origin: `http://localhost:${server.port}` });
    await local.body?.cancel();
    assert.equal(local.status, 200);

    const other = await post(server.url.replace(/\/mcp$/, "/other"));
    await other.body?.cancel();
    assert.equal(other.status, 404);

    const huge = await post(server.url, {}, "x".repeat(16 * 1024 * 1024 + 1));
    await huge.body?.cancel();
    assert.equal(huge.status, 413);
  } finally {
    await server.stop();
  }
});

Deno.test("with --http-token-file every request needs the bearer token, which is never logged", async () => {
  const env = await isolatedEnv();
  const tokenFile = `${env.HOME}/http.token`;
  await Deno.writeTextFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const server = await startHttp({ args: ["--http-token-file", tokenFile], env });
  try {
    const cases: [string, Record<string, string>, number][] = [
      ["no token", {}, 401],
      ["a wrong token", { authorization: "Bearer e2e-0123456789abcdeF" }, 401],
      ["the token without the scheme", { authorization: TOKEN }, 401],
      ["the right token", { authorization: `Bearer ${TOKEN}` }, 200],
    ];
    for (const [name, headers, status] of cases) {
      const response = await post(server.url, headers);
      await response.body?.cancel();
      assert.equal(response.status, status, name);
    }
    for (const era of ERAS) {
      const client = await connectHttp(server.url, era, TOKEN);
      const { tools } = await client.listTools();
      assert.ok(tools.length > 0, `tools listed with the token (${era})`);
      await client.close();
    }
    assert.ok(server.stderr().includes("bearer token required"));
  } finally {
    await server.stop();
  }
  assert.ok(!server.stderr().includes(TOKEN), "the token never reaches stderr");
});

/** Runs the real process to its exit with stdin closed. */
async function runToExit(args: string[], env?: Record<string, string>) {
  const { command, args: base } = serverCommand();
  const out = await new Deno.Command(command, {
    args: [...base, ...args],
    env: env ?? await isolatedEnv(),
    clearEnv: true,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(15_000),
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("HTTP mode refuses a bad start-up with a clear message and exit code", async () => {
  const env = await isolatedEnv();
  const spaced = `${env.HOME}/spaced.token`;
  await Deno.writeTextFile(spaced, "two words\n");
  const empty = `${env.HOME}/empty.token`;
  await Deno.writeTextFile(empty, "\n");
  const cases: { name: string; args: string[]; code: number; mentions: string[] }[] = [
    {
      name: "a non-loopback host",
      args: ["--http", "0.0.0.0:1"],
      code: 2,
      mentions: ["0.0.0.0", "loopback"],
    },
    {
      name: "a public host",
      args: ["--http", "192.0.2.1:7331"],
      code: 2,
      mentions: ["192.0.2.1", "loopback"],
    },
    { name: "no port", args: ["--http", "127.0.0.1"], code: 2, mentions: ["host:port"] },
    {
      name: "a token file without --http",
      args: ["--http-token-file", spaced],
      code: 2,
      mentions: ["--http-token-file", "--http"],
    },
    {
      name: "a token with a space",
      args: ["--http", "127.0.0.1:1", "--http-token-file", spaced],
      code: 2,
      mentions: [spaced, "spaces"],
    },
    {
      name: "an empty token file",
      args: ["--http", "127.0.0.1:1", "--http-token-file", empty],
      code: 2,
      mentions: [empty],
    },
    {
      name: "a missing token file",
      args: ["--http", "127.0.0.1:1", "--http-token-file", `${env.HOME}/nope.token`],
      code: 1,
      mentions: ["nope.token"],
    },
  ];
  for (const c of cases) {
    const { code, stderr } = await runToExit(c.args, env);
    assert.equal(code, c.code, `${c.name}: ${stderr}`);
    for (const word of c.mentions) assert.ok(stderr.includes(word), `${c.name} mentions ${word}`);
    assert.ok(!stderr.includes("two words"), "token content never printed");
  }
});

Deno.test("HTTP mode exits 1 when the port is taken", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (listener.addr as Deno.NetAddr).port;
    const { code, stderr } = await runToExit(["--http", `127.0.0.1:${port}`]);
    assert.equal(code, 1, stderr);
    assert.ok(stderr.includes(`${port}`), stderr);
  } finally {
    listener.close();
  }
});
