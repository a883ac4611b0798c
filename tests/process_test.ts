// The process as a command: exit codes for bad configuration, --version, stdout purity, oversized lines.

import assert from "assert";
import { exchange } from "./raw_client.ts";
import {
  isolatedEnv,
  LEGACY_OPENING,
  ROOT,
  runServer,
  serverCommand,
  spawnEntry,
} from "./harness.ts";

const BAD_CONFIG: {
  name: string;
  args: string[];
  env?: Record<string, string>;
  mentions: string[];
}[] = [
  { name: "an unknown flag", args: ["--bogus"], mentions: ["--bogus", "--node-url"] },
  {
    name: "an unknown toolset",
    args: ["--toolsets", "core,nope"],
    mentions: ["nope", "governance"],
  },
  {
    name: "a malformed timeout",
    args: [],
    env: { CALIMERO_NODE_TIMEOUT_MS: "soon" },
    mentions: ["soon", "integer"],
  },
  { name: "an unknown log level", args: ["--log", "loud"], mentions: ["loud", "debug"] },
  {
    name: "a non-loopback HTTP host",
    args: ["--http", "0.0.0.0:7331"],
    mentions: ["0.0.0.0", "loopback"],
  },
  {
    name: "a username without a password",
    args: [],
    env: { CALIMERO_USERNAME: "alice" },
    mentions: ["CALIMERO_PASSWORD"],
  },
  {
    name: "a refresh token without an access token",
    args: [],
    env: { CALIMERO_REFRESH_TOKEN: "r" },
    mentions: ["CALIMERO_AUTH_TOKEN"],
  },
];

for (const c of BAD_CONFIG) {
  Deno.test(`${c.name} exits 2 with a message naming the value and what is accepted`, async () => {
    const result = await runServer(c.args, await isolatedEnv(c.env));
    assert.equal(result.code, 2);
    assert.equal(result.stdout, "", "nothing on stdout");
    for (const word of c.mentions) {
      assert.ok(result.stderr.includes(word), `stderr mentions ${word}: ${result.stderr}`);
    }
  });
}

Deno.test("an unreadable CALIMERO_PASSWORD_FILE exits 1 naming the file", async () => {
  const result = await runServer(
    [],
    await isolatedEnv({ CALIMERO_USERNAME: "a", CALIMERO_PASSWORD_FILE: "/nonexistent/pw" }),
  );
  assert.equal(result.code, 1);
  assert.ok(result.stderr.includes("/nonexistent/pw"));
});

Deno.test("--version prints the deno.json version", async () => {
  const result = await runServer(["--version"], await isolatedEnv());
  const denoJson = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  assert.equal(result.code, 0);
  assert.equal(result.stdout.trim(), `mero-mcp ${denoJson.version}`);
});

Deno.test("every stdout line is JSON-RPC, also at debug level, and bad lines get JSON-RPC errors", async () => {
  const env = await isolatedEnv({ CALIMERO_MCP_LOG: "debug" });
  const huge = JSON.stringify({
    jsonrpc: "2.0",
    id: 99,
    method: "tools/list",
    params: { pad: "x".repeat(17 * 1024 * 1024) },
  });
  const lines = await exchange(env, [
    ...LEGACY_OPENING,
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    { jsonrpc: "2.0", id: 3, method: "no/such/method" },
    {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "no_such_tool", arguments: {} },
    },
  ], ["this is not json", "[1,2,3]", huge]);
  for (const line of lines) {
    assert.equal(line.jsonrpc, "2.0", `a JSON-RPC line: ${JSON.stringify(line).slice(0, 200)}`);
  }
  const errors = lines.filter((l) => l.id === null).map((l) => (l.error as { code: number }).code);
  assert.ok(errors.includes(-32700), "invalid JSON → parse error");
  assert.ok(errors.includes(-32600), "oversized or non-message → invalid request");
  assert.ok(lines.some((l) => l.id === 2 && "result" in l), "later requests still answered");
  assert.equal((lines.find((l) => l.id === 3)?.error as { code: number }).code, -32601);
  const unknownTool = lines.find((l) => l.id === 4)?.result as {
    isError: boolean;
    content: { text: string }[];
  };
  assert.equal(unknownTool.isError, true, "an unknown tool is a tool error, not a protocol error");
  assert.ok(unknownTool.content[0].text.includes("select_app"));
});

Deno.test("when the server worker dies, the process says why and exits 1", async () => {
  const env = await isolatedEnv();
  const child = spawnEntry("tests/sandbox/crash_main.ts", env);
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  await child.stdin.close().catch(() => {});
  assert.equal(status.code, 1);
  assert.equal(stdout, "");
  assert.match(stderr, /worker died.*the probe made the worker die/s);
  assert.ok(
    stderr.split("\n").filter((l) => l !== "").every((l) => l.startsWith("[mero-mcp] ")),
    `every stderr line is the logger's, no raw trace:\n${stderr}`,
  );
});

Deno.test({
  name:
    "started by hand in a terminal, the server says on stderr that it waits for an MCP client, and how to try it",
  ignore: Deno.build.os === "windows",
  async fn() {
    const env = await isolatedEnv({ CALIMERO_NODE_URL: "http://127.0.0.1:9" });
    const { command, args } = serverCommand();
    const line = [command, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
    // `script` gives the server a terminal for stdin, as a person's shell does.
    const child = new Deno.Command("script", {
      args: ["-qec", line, "/dev/null"],
      env,
      cwd: ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    const deadline = Date.now() + 20_000;
    while (!seen.includes("deno task demo") && Date.now() < deadline) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const next = await Promise.race([
        reader.read(),
        new Promise<null>((resolve) =>
          timer = setTimeout(() => resolve(null), deadline - Date.now())
        ),
      ]);
      clearTimeout(timer);
      if (next === null || next.done) break;
      seen += next.value;
    }
    child.kill("SIGKILL");
    await reader.cancel();
    await child.stderr.cancel();
    await child.stdin.close().catch(() => {});
    await child.status;
    assert.match(seen, /waits for an MCP client on stdin/);
    assert.match(seen, /deno task demo/);
    assert.match(seen, /doctor/);
  },
});
