import assert from "assert";
import { type Config, parseConfig, type ScannedNode } from "../config/config.ts";
import {
  canonicalNodeUrl,
  describeRungs,
  discoverNode,
  DiscoveryError,
  isLoopbackUrl,
  probePorts,
  readHandoff,
} from "./discovery.ts";
import { captureStderr } from "../testing/unit.ts";

// ---- helpers ---------------------------------------------------------------------------------------------

/** A node home path for messages; the rungs read only `scannedNodes`, never the directory. */
const HOME = "/home/test/.calimero";

/** What the node home scan gives for these nodes (see node_home_test.ts): localhost URLs, sorted by name. */
function scanned(ports: Record<string, number>): ScannedNode[] {
  return Object.keys(ports).sort().map((name) => ({
    name,
    url: `http://localhost:${ports[name]}`,
  }));
}

/** A health endpoint on a random loopback port answering `status`. */
function healthServer(status = 200): { port: number; close: () => Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) =>
      new URL(req.url).pathname === "/admin-api/health"
        ? Response.json({ data: { status: status === 200 ? "alive" : "store_unavailable" } }, {
          status,
        })
        : new Response(null, { status: 404 }),
  );
  return { port: server.addr.port, close: () => server.shutdown() };
}

/** A port nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function makeConfig(overrides: Partial<Config> = {}): Promise<Config> {
  const home = await Deno.makeTempDir({ prefix: "mero-user-" });
  const base = parseConfig([], { HOME: home });
  return {
    ...base,
    stateDir: await Deno.makeTempDir({ prefix: "mero-state-" }),
    nodeHome: `${home}/.calimero`,
    probePorts: [closedPort()],
    ...overrides,
  };
}

// ---- canonical URLs --------------------------------------------------------------------------------------

Deno.test("canonical node URLs give one spelling per node", () => {
  const cases: [string, string][] = [
    ["http://localhost:2528", "http://localhost:2528"],
    ["http://127.0.0.1:2528/", "http://localhost:2528"],
    ["http://[::1]:2528", "http://localhost:2528"],
    ["HTTP://LocalHost:2528//", "http://localhost:2528"],
    ["http://localhost", "http://localhost:80"],
    ["https://Node.Example.com", "https://node.example.com:443"],
    ["http://127.0.0.1:2528/node1/", "http://localhost:2528/node1"],
    ["http://localhost:2528/Node1", "http://localhost:2528/Node1"],
    ["https://example.com:8443/a/b", "https://example.com:8443/a/b"],
  ];
  for (const [input, expected] of cases) assert.equal(canonicalNodeUrl(input), expected, input);
});

Deno.test("loopback URLs are localhost, 127.0.0.1 and ::1 over http(s) only", () => {
  const cases: [string, boolean][] = [
    ["http://localhost:2528", true],
    ["http://127.0.0.1:2528", true],
    ["http://[::1]:2528", true],
    ["https://LOCALHOST", true],
    ["http://127.0.0.2:2528", false],
    ["http://example.com", false],
    ["ftp://localhost", false],
    ["not a url", false],
  ];
  for (const [input, expected] of cases) assert.equal(isLoopbackUrl(input), expected, input);
});

// ---- handoff ---------------------------------------------------------------------------------------------

Deno.test("a valid agent.json is read, trailing slash removed", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/agent.json`,
    JSON.stringify({ nodeUrl: "http://127.0.0.1:2528/", accessToken: "A", refreshToken: "R" }),
  );
  assert.deepEqual(await readHandoff(dir), {
    nodeUrl: "http://127.0.0.1:2528",
    accessToken: "A",
    refreshToken: "R",
  });
});

Deno.test("an absent agent.json is no handoff, silently", async () => {
  const dir = await Deno.makeTempDir();
  const stderr = await captureStderr(async () => assert.equal(await readHandoff(dir), null));
  assert.equal(stderr, "");
});

Deno.test("an unusable agent.json is ignored with a warning that leaks no secret", async () => {
  const cases: [string, string, RegExp][] = [
    ["not json", '{"accessToken": "SECRET-TOKEN", ', /not valid JSON/],
    [
      "no access token",
      JSON.stringify({ nodeUrl: "http://localhost:2528", refreshToken: "SECRET-R" }),
      /no "accessToken"/,
    ],
    [
      "remote node",
      JSON.stringify({
        nodeUrl: "http://user:SECRET-PW@node.example.com:2528/SECRET-PATH?t=SECRET-QUERY",
        accessToken: "SECRET-TOKEN",
      }),
      /"http:\/\/node\.example\.com:2528"\) is not a loopback address/,
    ],
    ["not an object", "[1, 2]", /no "accessToken"/],
  ];
  for (const [what, text, warning] of cases) {
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(`${dir}/agent.json`, text);
    const stderr = await captureStderr(async () =>
      assert.equal(await readHandoff(dir), null, what)
    );
    assert.match(stderr, warning, what);
    assert.doesNotMatch(stderr, /SECRET/, what);
  }
});

// ---- the rungs -------------------------------------------------------------------------------------------

Deno.test("each discovery rung wins when the ones above it do not apply", async (t) => {
  const probe = healthServer();
  const single = scanned({ solo: 2428 });
  const several = scanned({ alpha: 2428, default: 2429, beta: 2430 });
  const handoff = { nodeUrl: "http://127.0.0.1:2600", accessToken: "A", refreshToken: null };
  const cases: {
    name: string;
    config: Partial<Config>;
    handoff?: typeof handoff | null;
    expected: { url: string; discoverySource: string; nodeName: string | null };
  }[] = [
    {
      name: "env URL beats a handoff, a name and a scan",
      config: {
        nodeUrl: "http://node.example.com:9000/prefix",
        nodeName: "alpha",
        scannedNodes: several,
        nodeHome: HOME,
      },
      handoff,
      expected: {
        url: "http://node.example.com:9000/prefix",
        discoverySource: "env",
        nodeName: "alpha",
      },
    },
    {
      name: "handoff beats a name",
      config: { nodeName: "alpha", scannedNodes: several, nodeHome: HOME },
      handoff,
      expected: { url: "http://127.0.0.1:2600", discoverySource: "handoff", nodeName: "alpha" },
    },
    {
      name: "a named node beats the scan's default",
      config: { nodeName: "beta", scannedNodes: several, nodeHome: HOME },
      expected: { url: "http://localhost:2430", discoverySource: "named", nodeName: "beta" },
    },
    {
      name: "a single configured node",
      config: {
        scannedNodes: single,
        nodeHome: HOME,
        probePorts: [probe.port],
      },
      expected: { url: "http://localhost:2428", discoverySource: "config-scan", nodeName: "solo" },
    },
    {
      name: "several configured nodes pick the one named default",
      config: { scannedNodes: several, nodeHome: HOME },
      expected: {
        url: "http://localhost:2429",
        discoverySource: "config-scan",
        nodeName: "default",
      },
    },
    {
      name: "the probe finds a node answering its health check",
      config: { probePorts: [closedPort(), probe.port] },
      expected: { url: `http://localhost:${probe.port}`, discoverySource: "probe", nodeName: null },
    },
  ];
  try {
    for (const c of cases) {
      await t.step(c.name, async () => {
        const config = await makeConfig(c.config);
        const deps = c.handoff === undefined ? {} : { handoff: c.handoff };
        assert.deepEqual(await discoverNode(config, deps), c.expected);
      });
    }
  } finally {
    await probe.close();
  }
});

Deno.test("the handoff rung reads agent.json from the state dir", async () => {
  const config = await makeConfig();
  await Deno.writeTextFile(
    `${config.stateDir}/agent.json`,
    JSON.stringify({ nodeUrl: "http://localhost:2700/", accessToken: "A" }),
  );
  assert.deepEqual(await discoverNode(config), {
    url: "http://localhost:2700",
    discoverySource: "handoff",
    nodeName: null,
  });
});

Deno.test("the probe prefers the configured port order, and a non-2xx answer does not count", async () => {
  const first = healthServer();
  const second = healthServer();
  const unavailable = healthServer(503);
  try {
    const config = await makeConfig({
      probePorts: [unavailable.port, closedPort(), second.port, first.port],
    });
    const found = await discoverNode(config);
    assert.equal(found.url, `http://localhost:${second.port}`);
    const all = await probePorts(config.probePorts);
    assert.deepEqual(all.map((r) => r.ok), [false, false, true, true]);
    assert.equal(all[0].detail, "HTTP 503");
    assert.equal(all[1].detail, "connection refused");
  } finally {
    await Promise.all([first.close(), second.close(), unavailable.close()]);
  }
});

Deno.test("a probe that hangs gives up after its timeout", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  try {
    const [result] = await probePorts([port], { probeTimeoutMs: 100 });
    assert.deepEqual(result, {
      port,
      url: `http://localhost:${port}`,
      ok: false,
      detail: "no answer within 100 ms",
    });
  } finally {
    listener.close();
    held.forEach((c) => c.close());
    await accepting.catch(() => {});
  }
});

Deno.test("a named node that is missing is an error listing the names, with no fall-through", async () => {
  const probe = healthServer();
  try {
    const config = await makeConfig({
      nodeName: "node3",
      nodeHome: HOME,
      scannedNodes: scanned({ node1: 2428, node2: 2429 }),
      probePorts: [probe.port],
    });
    await assert.rejects(discoverNode(config), (err: Error) => {
      assert.ok(err instanceof DiscoveryError);
      assert.equal(
        err.message,
        `No node named "node3" under ${HOME}. Nodes there: node1, node2. Set CALIMERO_NODE_NAME ` +
          "(or --node-name) to one of them, or CALIMERO_NODE_URL (or --node-url) to its URL.",
      );
      return true;
    });
  } finally {
    await probe.close();
  }
});

Deno.test("several configured nodes and no default is an error listing name (url) pairs", async () => {
  const config = await makeConfig({
    nodeHome: HOME,
    scannedNodes: scanned({ node1: 2428, node2: 2429 }),
  });
  await assert.rejects(discoverNode(config), {
    name: "DiscoveryError",
    message: `Several nodes are configured under ${HOME}: node1 (http://localhost:2428), ` +
      "node2 (http://localhost:2429). Choose one with CALIMERO_NODE_NAME=<name> (or --node-name), or set " +
      "CALIMERO_NODE_URL (or --node-url) to its URL.",
  });
});

Deno.test("no node anywhere is an error saying where discovery looked and how to point at one", async () => {
  const ports = [closedPort(), closedPort()];
  const config = await makeConfig({ probePorts: ports });
  await assert.rejects(discoverNode(config), (err: Error) => {
    assert.ok(err instanceof DiscoveryError);
    assert.match(err.message, /^No Calimero node found\./);
    assert.ok(err.message.includes(config.nodeHome), "names the node home");
    assert.ok(err.message.includes(config.stateDir), "names the state dir");
    assert.ok(err.message.includes(ports.join(", ")), "names the ports");
    for (
      const setting of ["CALIMERO_NODE_URL", "--node-url", "CALIMERO_NODE_NAME", "--node-name"]
    ) {
      assert.ok(err.message.includes(setting), setting);
    }
    return true;
  });
});

Deno.test("describeRungs reports every rung, the chosen one and why the others did not match", async () => {
  const probe = healthServer();
  try {
    const config = await makeConfig({
      nodeHome: HOME,
      scannedNodes: scanned({ default: 2428, other: 2429 }),
      probePorts: [probe.port],
    });
    const report = await describeRungs(config, { handoff: null });
    assert.deepEqual(report.map((r) => [r.source, r.outcome.kind, r.chosen]), [
      ["env", "skip", false],
      ["handoff", "skip", false],
      ["named", "skip", false],
      ["config-scan", "match", true],
      ["probe", "match", false],
    ]);
    assert.deepEqual(report[0].outcome, { kind: "skip", reason: "CALIMERO_NODE_URL is not set" });
  } finally {
    await probe.close();
  }
});

Deno.test("describeRungs chooses nothing when an earlier rung stops discovery with an error", async () => {
  const config = await makeConfig({ nodeName: "ghost" });
  const report = await describeRungs(config, { handoff: null });
  assert.equal(report[2].outcome.kind, "error");
  assert.ok(report.every((r) => !r.chosen));
});

Deno.test("a problem the node home scan reported is quoted where discovery explains itself", async () => {
  const config = await makeConfig({ scanError: "cannot list the node home: permission denied" });
  await assert.rejects(discoverNode(config), {
    message: new RegExp(`under ${config.nodeHome} \\(the scan reported: cannot list the node home`),
  });
  await assert.rejects(discoverNode({ ...config, nodeName: "x" }), {
    message:
      /^No node named "x" under .* \(the scan reported: cannot list the node home: permission denied\)\. /,
  });
});
