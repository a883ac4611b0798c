// `mero-mcp doctor` as a command: the real process against the simulated node in proxy and embedded auth
// modes, a node that is down, and the facts each report must state — and never a secret.

import assert from "assert";
import { isolatedEnv, runServer, unusedPort } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";

const doctor = (env: Record<string, string>, args: string[] = []) =>
  runServer(["doctor", ...args], env);

function assertNoSecret(output: { stdout: string; stderr: string }, secrets: string[]): void {
  for (const secret of secrets) {
    assert.ok(!output.stdout.includes(secret), `stdout must not contain "${secret}"`);
    assert.ok(!output.stderr.includes(secret), `stderr must not contain "${secret}"`);
  }
}

Deno.test("doctor against a proxy-mode node exits 0 and states the rung, health, identity, apps and tool count", async () => {
  const sim = await startSimNode();
  try {
    sim.setPeers(0);
    const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
    const result = await doctor(env);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const out = result.stdout;
    // What a person needs when a context does not sync: is the node ready, has it a peer.
    assert.match(out, /ok\s+readiness\s+ready/);
    assert.match(out, /warn\s+peers\s+0: contexts cannot sync with other members/);
    assert.match(
      out,
      /ok\s+env \(CALIMERO_NODE_URL\)\s+http:\/\/127\.0\.0\.1:\d+: this is the node used/,
    );
    assert.match(
      out,
      /-\s+probe \(local ports\)\s+no answer on localhost:\d+ \(connection refused\)/,
    );
    assert.match(out, /ok\s+health\s+alive/);
    // A fresh node has no account until it takes part in a namespace (core get_node_identity.rs).
    assert.match(out, /·\s+identity\s+none yet: the node gets its account the first time/);
    assert.match(out, /mode\s+none/);
    assert.match(out, /ok\s+works\s+the node asks for no authentication/);
    assert.match(out, /ok\s+handle\.key\s+0600/);
    assert.match(out, /ok\s+com\.calimero\.kv-store\s+1\.0\.0: 10 tools/);
    assert.match(
      out,
      /warn\s+com\.calimero\.broken-abi\s+0\.1\.0: fails to load.*unsupported ABI schema version wasm-abi\/2/,
    );
    assert.match(out, /warn\s+com\.calimero\.garbled-abi\s+0\.1\.0: fails to load/);
    assert.match(
      out,
      /count\s+\d+ tools: 46 fixed \(core, blobs, governance\) \+ 7 app tools \+ \d+ generated/,
    );
    assert.match(out, /warn\s+limits\s+\d+ tools, over 40, 50 and 128 \(by \d+, \d+ and \d+\)/);
    assert.doesNotMatch(out, /abi-[0-9a-f]+\.json/, "kept ABIs are one line");
    // The first run keeps the ABIs it read (in the background); a second run shows them as one line.
    const again = (await doctor(env)).stdout;
    assert.match(again, /ok\s+kept ABIs\s+\d+ app ABIs kept from the node/);
    assert.doesNotMatch(again, /abi-[0-9a-f]+\.json/, "kept ABIs are one line");
    assert.match(out, /--toolsets core,apps/);
    assert.match(out, /Result: the server would work\./);
    assert.ok(!out.includes("\x1b["), "no colour when stdout is not a terminal");
  } finally {
    await sim.close();
  }
});

Deno.test("doctor with good credentials says auth works and never prints the password", async () => {
  const password = "correct-horse-battery";
  const sim = await startSimNode({ auth: { username: "admin", password }, apps: ["kv-store"] });
  try {
    const result = await doctor(
      await isolatedEnv({
        CALIMERO_NODE_URL: sim.url,
        CALIMERO_USERNAME: "admin",
        CALIMERO_PASSWORD: password,
      }),
    );
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /mode\s+credentials: CALIMERO_USERNAME "admin"/);
    assert.match(result.stdout, /ok\s+works\s+the node accepted the token/);
    assert.match(result.stdout, /ok\s+tokens-[0-9a-f]{16}\.json\s+0600 \(cached tokens\)/);
    assertNoSecret(result, [password]);
  } finally {
    await sim.close();
  }
});

Deno.test("doctor with a wrong password exits 1 with the actionable login message, printing neither password", async () => {
  const password = "correct-horse-battery";
  const wrong = "wrong-horse-battery";
  const sim = await startSimNode({ auth: { username: "admin", password }, apps: [] });
  try {
    const result = await doctor(
      await isolatedEnv({
        CALIMERO_NODE_URL: sim.url,
        CALIMERO_USERNAME: "admin",
        CALIMERO_PASSWORD: wrong,
      }),
    );
    assert.equal(result.code, 1, result.stdout);
    assert.match(
      result.stdout,
      /FAIL\s+works\s+The node rejected the login.*Check CALIMERO_USERNAME and CALIMERO_PASSWORD/,
    );
    assert.match(result.stdout, /Result: the server would not work:\n\s+- Auth: The node rejected/);
    assert.ok(sim.stats.failedLogins <= 1, "one login attempt per doctor run");
    assertNoSecret(result, [password, wrong]);
  } finally {
    await sim.close();
  }
});

Deno.test("doctor with a token and with a handoff file says auth works and never prints a token", async () => {
  const sim = await startSimNode({ auth: { username: "admin", password: "pw-123456" }, apps: [] });
  try {
    const env = await isolatedEnv({ CALIMERO_NODE_URL: sim.url });
    const pair = sim.issueTokens();
    const byToken = await doctor({
      ...env,
      CALIMERO_AUTH_TOKEN: pair.access_token,
      CALIMERO_REFRESH_TOKEN: pair.refresh_token,
    });
    assert.equal(byToken.code, 0, byToken.stdout);
    assert.match(
      byToken.stdout,
      /mode\s+token: CALIMERO_AUTH_TOKEN \(with CALIMERO_REFRESH_TOKEN\)/,
    );
    assert.match(byToken.stdout, /ok\s+works/);
    assertNoSecret(byToken, [pair.access_token, pair.refresh_token]);

    const handoff = sim.issueTokens();
    const handoffEnv = await isolatedEnv();
    await Deno.mkdir(handoffEnv.CALIMERO_MCP_STATE_DIR, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(
      `${handoffEnv.CALIMERO_MCP_STATE_DIR}/agent.json`,
      JSON.stringify({
        nodeUrl: sim.url,
        accessToken: handoff.access_token,
        refreshToken: handoff.refresh_token,
      }),
      { mode: 0o600 },
    );
    const byHandoff = await doctor(handoffEnv);
    assert.equal(byHandoff.code, 0, byHandoff.stdout);
    assert.match(
      byHandoff.stdout,
      /ok\s+handoff \(agent\.json\)\s+http:\/\/127\.0\.0\.1:\d+: this is/,
    );
    assert.match(byHandoff.stdout, /mode\s+handoff/);
    assert.match(byHandoff.stdout, /agent\.json\s+0600 \(desktop app handoff\)/);
    assertNoSecret(byHandoff, [handoff.access_token, handoff.refresh_token]);
  } finally {
    await sim.close();
  }
});

Deno.test("doctor finds a node configured under the node home and names the rung and the node", async () => {
  const sim = await startSimNode({ apps: [] });
  try {
    const env = await isolatedEnv();
    await Deno.mkdir(`${env.CALIMERO_NODE_HOME}/node1`, { recursive: true });
    await Deno.writeTextFile(
      `${env.CALIMERO_NODE_HOME}/node1/config.toml`,
      `[server]\nlisten = ["/ip4/127.0.0.1/tcp/${sim.port}"]\n`,
    );
    const result = await doctor(env);
    assert.equal(result.code, 0, result.stdout);
    assert.match(
      result.stdout,
      /ok\s+config-scan \(node home\)\s+http:\/\/localhost:\d+ \(node "node1"\): this is the node used/,
    );
    assert.match(
      result.stdout,
      /address\s+http:\/\/localhost:\d+ \(found by config-scan, node "node1"\)/,
    );
    assert.match(result.stdout, /applications\s+none installed/);
  } finally {
    await sim.close();
  }
});

Deno.test("doctor against a node that is down exits 1 with cannot reach", async () => {
  const url = `http://127.0.0.1:${await unusedPort()}`;
  const result = await doctor(await isolatedEnv({ CALIMERO_NODE_URL: url }));
  assert.equal(result.code, 1);
  assert.match(result.stdout, /FAIL\s+health\s+cannot reach the node at http:\/\/127\.0\.0\.1:\d+/);
  assert.match(result.stdout, /applications\s+not checked: the node did not answer/);
  assert.match(result.stdout, /Result: the server would not work:\n\s+- Node: cannot reach/);
});

Deno.test("doctor with no node anywhere exits 1 saying where it looked", async () => {
  const result = await doctor(await isolatedEnv());
  assert.equal(result.code, 1);
  assert.match(result.stdout, /FAIL\s+address\s+No Calimero node found\. Looked for agent\.json/);
});

Deno.test("doctor never prints a node URL's query string", async () => {
  const sim = await startSimNode({ apps: [] });
  try {
    const result = await doctor(
      await isolatedEnv({ CALIMERO_NODE_URL: `${sim.url}/?api_key=query-secret-value` }),
    );
    assertNoSecret(result, ["query-secret-value"]);
  } finally {
    await sim.close();
  }
});

Deno.test("doctor --json prints the report as JSON with the verdict and the sections", async () => {
  const sim = await startSimNode({ apps: ["kv-store", "broken-abi"] });
  try {
    const result = await doctor(await isolatedEnv({ CALIMERO_NODE_URL: sim.url }), ["--json"]);
    assert.equal(result.code, 0);
    const report = JSON.parse(result.stdout);
    assert.equal(report.works, true);
    assert.deepEqual(
      report.sections.map((s: { title: string }) => s.title),
      ["Discovery", "Node", "Auth", "State directory", "Apps", "Tools"],
    );
    const apps = report.sections.find((s: { title: string }) => s.title === "Apps").lines;
    assert.equal(
      apps.find((l: { label: string }) => l.label.endsWith("broken-abi")).status,
      "warn",
    );
  } finally {
    await sim.close();
  }
});

Deno.test("doctor says whether the credential is admin-scoped, and lists a narrower key's permissions", async () => {
  const sim = await startSimNode({ auth: { username: "admin", password: "pw-123456" }, apps: [] });
  try {
    const admin = sim.issueTokens();
    const wide = await doctor(
      await isolatedEnv({
        CALIMERO_NODE_URL: sim.url,
        CALIMERO_AUTH_TOKEN: admin.access_token,
      }),
    );
    assert.match(wide.stdout, /warn\s+scope\s+admin: this token may do everything on the node/);
    const scoped = sim.issueTokens(["context[abc,def]", "blob:get", "application:list"]);
    const narrow = await doctor(
      await isolatedEnv({
        CALIMERO_NODE_URL: sim.url,
        CALIMERO_AUTH_TOKEN: scoped.access_token,
      }),
    );
    assert.match(
      narrow.stdout,
      /ok\s+scope\s+scoped: context\[abc,def\], blob:get, application:list/,
    );
    // What each toolset needs that this key lacks (core's permission names).
    assert.match(narrow.stdout, /warn\s+needs apps\s+missing context:list, context:execute/);
    assert.match(narrow.stdout, /needs admin\s+peers, network status and usage/);
    assertNoSecret(narrow, [scoped.access_token]);
    const proxy = await startSimNode({ apps: [] });
    try {
      const open = await doctor(await isolatedEnv({ CALIMERO_NODE_URL: proxy.url }));
      assert.match(open.stdout, /scope\s+no token: the node lets whoever reaches it do everything/);
      assert.match(open.stdout, /mode\s+read-write/);
      const readOnly = await doctor(
        await isolatedEnv({
          CALIMERO_NODE_URL: proxy.url,
          CALIMERO_MCP_READ_ONLY: "1",
        }),
      );
      assert.match(readOnly.stdout, /mode\s+read-only \(--read-only\)/);
    } finally {
      await proxy.close();
    }
  } finally {
    await sim.close();
  }
});

Deno.test("credentials withheld from a probed node: doctor names the one variable to set", async () => {
  const sim = await startSimNode({ apps: [], auth: { username: "ada", password: "secret" } });
  try {
    const result = await doctor(
      await isolatedEnv({
        CALIMERO_MCP_PROBE_PORTS: String(sim.port),
        CALIMERO_USERNAME: "ada",
        CALIMERO_PASSWORD: "secret",
      }),
    );
    assert.match(
      result.stdout,
      new RegExp(
        `FAIL\\s+works\\s+the node at http://localhost:${sim.port} needs authentication, and the configured credentials are not sent to a port found by probing: set CALIMERO_NODE_URL=http://localhost:${sim.port}`,
        "i",
      ),
    );
    assertNoSecret(result, ["secret"]);
  } finally {
    await sim.close();
  }
});
