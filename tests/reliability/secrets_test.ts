// R5: failing logins, expired, spent and revoked tokens, node URLs carrying userinfo
// and query tokens, handoff files (valid, invalid, remote) — at debug log level, through every kind of tool. No
// configured secret, nor any token the session obtained, appears in stderr, stdout or any tool result.

import assert from "assert";
import { type SimNode, startSimNode } from "../sim_node/mod.ts";
import { ROOT, serverCommand, tempHome } from "../harness.ts";
import { initialize, type RawServer, report, startServer } from "../raw_client.ts";

const USER = "r5-user";
const PASSWORD = "r5-correct-password";

/** A made-up secret: a marker that also catches a truncated leak, plus a random tail. */
function secret(kind: string): string {
  return `R5SECRET-${kind}-${crypto.randomUUID().slice(0, 8)}`;
}

/** What one scenario configures and does. */
interface Scenario {
  name: string;
  /** Start the node with embedded auth. */
  auth?: boolean;
  /** Leave CALIMERO_NODE_URL unset (the handoff file or discovery finds the node); else it is the node's URL. */
  discover?: boolean;
  /** The server's extra environment and files; returns the secrets it configured. */
  setup(sim: SimNode, home: string, stateDir: string): Promise<{
    env: Record<string, string>;
    secrets: string[];
  }>;
  /** Steps between rounds of tool calls (a round runs first, then one after each step). */
  steps?: ((sim: SimNode) => Promise<unknown> | unknown)[];
  /** Tool calls added to every round. */
  extraCalls?: [string, Record<string, unknown>][];
  /** Proves the scenario took the path it names (node counters). */
  took?: (sim: SimNode) => void;
}

async function writeAgentJson(stateDir: string, content: unknown): Promise<void> {
  await Deno.mkdir(stateDir, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(
    `${stateDir}/agent.json`,
    typeof content === "string" ? content : JSON.stringify(content),
    { mode: 0o600 },
  );
}

/** Spends a refresh token behind the server's back, so its own refresh meets `token_reuse`. */
async function spendRefreshToken(
  sim: SimNode,
  pair: { access_token: string; refresh_token: string },
) {
  const response = await fetch(`${sim.url}/auth/refresh`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(pair),
  });
  const body = await response.json();
  assert.equal(response.status, 200, `the out-of-band refresh worked: ${JSON.stringify(body)}`);
  return body.data as { access_token: string; refresh_token: string };
}

/** A loopback port nothing listens on (a moment ago). */
function deadPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

const SCENARIOS: Scenario[] = [
  {
    name: "failing logins with a wrong password, until the node locks them out (429)",
    auth: true,
    setup: () => {
      const password = secret("password");
      return Promise.resolve({
        env: { CALIMERO_USERNAME: USER, CALIMERO_PASSWORD: password },
        secrets: [password],
      });
    },
    steps: [() => {}],
    took: (sim) => assert.ok(sim.stats.failedLogins >= 5, "the node locked the logins out"),
  },
  {
    name: "a password file holding a wrong password",
    auth: true,
    async setup(_sim, home) {
      const password = secret("password-file");
      await Deno.writeTextFile(`${home}/password.txt`, `${password}\n`);
      return {
        env: { CALIMERO_USERNAME: USER, CALIMERO_PASSWORD_FILE: `${home}/password.txt` },
        secrets: [password],
      };
    },
    took: (sim) => assert.ok(sim.stats.failedLogins >= 1, "a login failed"),
  },
  {
    name: "credentials that work, then revoked tokens and a fresh login",
    auth: true,
    setup: () =>
      Promise.resolve({
        env: { CALIMERO_USERNAME: USER, CALIMERO_PASSWORD: PASSWORD },
        secrets: [PASSWORD],
      }),
    steps: [(sim) => sim.revokeTokens(), (sim) => sim.expireTokens()],
    took: (sim) => assert.ok(sim.stats.logins >= 2, "a fresh login after the revocation"),
  },
  {
    name: "an access token that expires, without a refresh token",
    auth: true,
    setup: (sim) => {
      const pair = sim.issueTokens();
      return Promise.resolve({
        env: { CALIMERO_AUTH_TOKEN: pair.access_token },
        secrets: [pair.access_token, pair.refresh_token],
      });
    },
    steps: [(sim) => sim.expireTokens()],
  },
  {
    name: "an expired token whose refresh token was already spent (token_reuse)",
    auth: true,
    setup: (sim) => {
      const pair = sim.issueTokens();
      extraSecrets.length = 0;
      spent = pair;
      return Promise.resolve({
        env: { CALIMERO_AUTH_TOKEN: pair.access_token, CALIMERO_REFRESH_TOKEN: pair.refresh_token },
        secrets: [pair.access_token, pair.refresh_token],
      });
    },
    steps: [async (sim) => {
      sim.expireTokens();
      const next = await spendRefreshToken(sim, spent!);
      extraSecrets.push(next.access_token, next.refresh_token);
    }],
    took: (sim) => assert.ok(sim.stats.reuseDetected >= 1, "the node saw the spent token again"),
  },
  {
    name: "tokens revoked mid-session",
    auth: true,
    setup: (sim) => {
      const pair = sim.issueTokens();
      return Promise.resolve({
        env: { CALIMERO_AUTH_TOKEN: pair.access_token, CALIMERO_REFRESH_TOKEN: pair.refresh_token },
        secrets: [pair.access_token, pair.refresh_token],
      });
    },
    steps: [(sim) => sim.revokeTokens()],
  },
  {
    name: "a token the node never issued",
    auth: true,
    setup: () => {
      const [access, refresh] = [secret("token"), secret("refresh")];
      return Promise.resolve({
        env: { CALIMERO_AUTH_TOKEN: access, CALIMERO_REFRESH_TOKEN: refresh },
        secrets: [access, refresh],
      });
    },
  },
  {
    name: "a node URL with userinfo, a query token and a fragment, through 5xx, hang and down",
    setup: (sim) => {
      const [user, query, fragment] = [secret("userinfo"), secret("query"), secret("fragment")];
      const url = `http://r5:${user}@127.0.0.1:${sim.port}/?token=${query}#${fragment}`;
      return Promise.resolve({
        env: { CALIMERO_NODE_URL: url, CALIMERO_NODE_TIMEOUT_MS: "300" },
        secrets: [user, query, fragment],
      });
    },
    steps: [
      (sim) => sim.setFault({ kind: "status", status: 500 }),
      (sim) => sim.setFault({ kind: "hang" }),
      (sim) => sim.setFault({ kind: "malformed" }),
      (sim) => sim.setFault({ kind: "down" }),
    ],
  },
  {
    name: "a node URL with a path prefix and an access_token query, to a node that is down",
    setup() {
      const [user, query] = [secret("userinfo-down"), secret("query-down")];
      const url = `http://${user}:x@127.0.0.1:${deadPort()}/node?access_token=${query}`;
      return Promise.resolve({ env: { CALIMERO_NODE_URL: url }, secrets: [user, query] });
    },
  },
  {
    name: "a registry URL with userinfo and a query token, installing from it and failing to",
    setup: (sim) => {
      const [user, query] = [secret("registry-userinfo"), secret("registry-query")];
      return Promise.resolve({
        env: {
          CALIMERO_NODE_URL: sim.url,
          CALIMERO_REGISTRY_URL: `http://r5:${user}@127.0.0.1:${sim.port}/?token=${query}`,
          CALIMERO_MCP_ALLOW_LOCAL_URLS: "1",
        },
        secrets: [user, query],
      });
    },
    extraCalls: [
      ["install_application", { coords: "com.calimero.kv-store@1.1.0" }],
      ["install_application", { coords: "com.calimero.nope@9.9.9" }],
    ],
    steps: [(sim) => sim.setFault({ kind: "status", status: 502 }, { pathPrefix: "/api" })],
  },
  {
    name: "a handoff file (with a query token in its nodeUrl) whose tokens get revoked",
    auth: true,
    discover: true,
    async setup(sim, _home, stateDir) {
      const pair = sim.issueTokens();
      const query = secret("handoff-query");
      await writeAgentJson(stateDir, {
        nodeUrl: `${sim.url}/?token=${query}`,
        accessToken: pair.access_token,
        refreshToken: pair.refresh_token,
      });
      return { env: {}, secrets: [pair.access_token, pair.refresh_token, query] };
    },
    steps: [(sim) => sim.expireTokens(), (sim) => sim.revokeTokens()],
  },
  {
    name: "a handoff file that is not JSON, holding a token",
    async setup(sim, _home, stateDir) {
      const token = secret("handoff-broken");
      await writeAgentJson(
        stateDir,
        `{"nodeUrl":"http://127.0.0.1:${sim.port}","accessToken":"${token}",`,
      );
      return { env: { CALIMERO_NODE_URL: sim.url }, secrets: [token] };
    },
  },
  {
    name: "a handoff file naming a remote node with secrets in its URL",
    async setup(sim, _home, stateDir) {
      const [user, query, token] = [
        secret("remote-userinfo"),
        secret("remote-query"),
        secret("remote-token"),
      ];
      await writeAgentJson(stateDir, {
        nodeUrl: `https://r5:${user}@node.example.com/${query}?token=${query}`,
        accessToken: token,
      });
      return { env: { CALIMERO_NODE_URL: sim.url }, secrets: [user, query, token] };
    },
  },
  {
    name: "a handoff file without an access token",
    discover: true,
    async setup(sim, _home, stateDir) {
      const refresh = secret("handoff-refresh-only");
      await writeAgentJson(stateDir, {
        nodeUrl: `http://127.0.0.1:${sim.port}`,
        refreshToken: refresh,
      });
      return { env: {}, secrets: [refresh] };
    },
  },
  {
    name: "a handoff file for another node than the one configured",
    auth: true,
    async setup(sim, _home, stateDir) {
      const other = secret("other-node-token");
      await writeAgentJson(stateDir, {
        nodeUrl: `http://127.0.0.1:${deadPort()}`,
        accessToken: other,
        refreshToken: other + "-refresh",
      });
      return {
        env: { CALIMERO_NODE_URL: sim.url, CALIMERO_USERNAME: USER, CALIMERO_PASSWORD: PASSWORD },
        secrets: [other, PASSWORD],
      };
    },
  },
];

/** Tokens a scenario's step obtained (the token_reuse scenario's out-of-band pair). */
const extraSecrets: string[] = [];
let spent: { access_token: string; refresh_token: string } | null = null;

/** The tool calls of one round: node, listing, app, generated and batch tools, and error paths. */
const ROUND: [string, Record<string, unknown>][] = [
  ["node_status", {}],
  ["list_nodes", {}],
  ["list_applications", {}],
  ["list_contexts", {}],
  ["list_namespaces", {}],
  ["select_app", { app: "kv-store", context: "r5" }],
  ["describe_app", { app: "kv-store" }],
  ["call", { app: "kv-store", context: "r5", method: "get", args: { key: "k" } }],
  ["call_many", { calls: [{ app: "kv-store", context: "r5", method: "len" }] }],
  ["kv_store_get", { app_handle: "forged.handle", key: "k" }],
  ["lookup_alias", { name: "r5" }],
  ["create_context", { application: "kv-store", namespace: "nope" }],
];

async function round(
  server: RawServer,
  calls: Map<string, string>,
  extra: [string, Record<string, unknown>][] = [],
): Promise<void> {
  const ids = [...ROUND, ...extra].map(([name, args]) => {
    const id = server.nextId();
    calls.set(JSON.stringify(id), name);
    void server.send({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    });
    return id;
  });
  await server.until(() => ids.every((id) => server.responses(id).length > 0), 30_000, "a round");
}

/** The forms a secret can leak in: as is, URL-encoded, base64 (alone and as Basic credentials), its marker. */
function leakForms(value: string): string[] {
  const forms = new Set([value, encodeURIComponent(value), btoa(value)]);
  forms.add(btoa(`${USER}:${value}`));
  const marker = /^(R5SECRET-[a-z-]+)-[0-9a-f]{8}/.exec(value)?.[1];
  if (marker) forms.add(marker);
  const parts = value.split(".");
  if (parts.length === 3 && parts[2].length >= 16) forms.add(parts[2]); // a JWT's signature
  return [...forms].filter((f) => f.length >= 12);
}

/** Where secrets appear in `text`: one masked excerpt per secret found (its first form that occurs). */
function findLeaks(text: string, secrets: string[], where: string): string[] {
  const leaks: string[] = [];
  for (const value of secrets) {
    for (const form of leakForms(value)) {
      const at = text.indexOf(form);
      if (at === -1) continue;
      const excerpt = text.slice(Math.max(0, at - 80), at) + "<SECRET>" +
        text.slice(at + form.length, at + form.length + 40);
      leaks.push(`${where}: …${excerpt.replace(/\n/g, "⏎")}…`);
      break;
    }
  }
  return leaks;
}

/** Runs `mero-mcp doctor` with the scenario's environment; returns what it printed. */
async function doctor(env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  const { command, args } = serverCommand();
  const out = await new Deno.Command(command, {
    args: [...args, "doctor"],
    env,
    clearEnv: true,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output();
  const text = new TextDecoder();
  return { stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** Leaks per stdout line (labelled with the tool whose answer it is) and per stderr line. */
function scan(server: RawServer, calls: Map<string, string>, secrets: string[]): string[] {
  const leaks: string[] = [];
  for (const line of server.lines) {
    const id = JSON.stringify((JSON.parse(line) as { id?: unknown }).id ?? null);
    leaks.push(...findLeaks(line, secrets, `stdout (${calls.get(id) ?? "no tool"})`));
  }
  for (const line of server.stderr().split("\n")) leaks.push(...findLeaks(line, secrets, "stderr"));
  return leaks;
}

Deno.test("R5: the leak scanner finds a secret in each form it knows", () => {
  const value = secret("scanner");
  for (const text of [`x ${value} y`, `a=${btoa(value)}`, `Basic ${btoa(`${USER}:${value}`)}`]) {
    assert.equal(findLeaks(text, [value], "t").length, 1, text);
  }
  assert.equal(findLeaks(`token R5SECRET-scanner-… cut`, [value], "t").length, 1, "truncated");
  assert.deepEqual(findLeaks("nothing here", [value], "t"), []);
});

for (const scenario of SCENARIOS) {
  Deno.test(`R5: ${scenario.name} — no secret in stderr, stdout or any tool result`, async () => {
    const sim = await startSimNode({
      apps: ["kv-store"],
      ...(scenario.auth ? { auth: { username: USER, password: PASSWORD } } : {}),
    });
    sim.createContext(sim.appId("kv-store"), { alias: "r5" });
    const { env: base, cleanup } = await tempHome({ CALIMERO_MCP_LOG: "debug" });
    const configured = await scenario.setup(sim, base.HOME, base.CALIMERO_MCP_STATE_DIR);
    const env = { ...base, ...configured.env };
    if (!("CALIMERO_NODE_URL" in configured.env) && !scenario.discover) {
      env.CALIMERO_NODE_URL = sim.url;
    }
    const server = startServer({ env });
    const started = performance.now();
    const calls = new Map<string, string>();
    try {
      await initialize(server);
      await round(server, calls, scenario.extraCalls);
      for (const step of scenario.steps ?? []) {
        await step(sim);
        await round(server, calls, scenario.extraCalls);
      }
      await sim.setFault(null);
      assert.equal(await server.close(), 0, "the server exits cleanly");
      scenario.took?.(sim);
      // Tokens the session obtained (login, refresh) are as secret as the configured ones.
      const obtained: string[] = [];
      for await (const entry of Deno.readDir(base.CALIMERO_MCP_STATE_DIR)) {
        if (!/^tokens-.*\.json$/.test(entry.name)) continue;
        const stored = JSON.parse(
          await Deno.readTextFile(`${base.CALIMERO_MCP_STATE_DIR}/${entry.name}`),
        );
        obtained.push(stored.access_token, stored.refresh_token);
      }
      const secrets = [...configured.secrets, ...extraSecrets, ...obtained].filter((s) =>
        typeof s === "string"
      );
      const doctorOut = await doctor(env);
      const leaks = [
        ...new Set(scan(server, calls, secrets)),
        ...findLeaks(doctorOut.stdout, secrets, "doctor stdout"),
        ...findLeaks(doctorOut.stderr, secrets, "doctor stderr"),
      ];
      assert.deepEqual(leaks, [], "no secret leaks");
      assert.ok(server.lines.length > ROUND.length, "the rounds were answered");
      report(
        "R5",
        `${scenario.name}: ${1 + (scenario.steps?.length ?? 0)} rounds of ${
          ROUND.length + (scenario.extraCalls?.length ?? 0)
        } calls, ${secrets.length} secrets, ${server.stderr().length} bytes of stderr, ${
          server.lines.join("\n").length
        } of stdout, doctor's output, scanned in ${Math.round(performance.now() - started)} ms`,
      );
    } finally {
      if (server.exitCode() === null) await server.kill();
      extraSecrets.length = 0;
      await sim.close();
      await cleanup();
    }
  });
}

Deno.test("R5: a registry URL carrying userinfo and a query token still reaches the bundle route", async () => {
  const sim = await startSimNode({ apps: [], installUrlChecks: false }); // a node before 0.11.0-rc.10
  const { env, cleanup } = await tempHome({
    CALIMERO_NODE_URL: sim.url,
    CALIMERO_REGISTRY_URL: `http://r5:${secret("registry")}@127.0.0.1:${sim.port}/?token=t`,
    CALIMERO_MCP_ALLOW_LOCAL_URLS: "1",
  });
  const server = startServer({ env });
  try {
    await initialize(server);
    const id = server.nextId();
    await server.send({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "install_application", arguments: { coords: "com.calimero.kv-store@1.1.0" } },
    });
    const answer = await server.response(id);
    const result = answer.result as { isError?: boolean; content: { text: string }[] };
    assert.deepEqual(
      sim.requests.filter((r) => !r.path.startsWith("/admin-api")).map((r) =>
        `${r.method} ${r.path}`
      ),
      ["GET /api/v2/bundles/com.calimero.kv-store/1.1.0"],
      "the bundle route is asked (the path goes before the query string, not into it)",
    );
    assert.ok(!result.isError, result.content[0].text);
  } finally {
    await server.kill();
    await sim.close();
    await cleanup();
  }
});
