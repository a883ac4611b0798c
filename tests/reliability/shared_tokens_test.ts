// R3: the token store across real server processes sharing one state dir, against the simulated
// node's embedded auth. Eight processes refreshing one expired token spend it exactly once and all end
// authenticated; a process killed during a refresh leaves the token file holding the old or the new pair, never a
// partial or mixed one, and the next process authenticates.

import assert from "assert";
import { tempHome } from "../harness.ts";
import { type SimNode, startSimNode } from "../sim_node/mod.ts";
import {
  callTool,
  initialize,
  type RawServer,
  report,
  resultText,
  startServer,
} from "../raw_client.ts";

const PROCESSES = 8;
/** Kill rounds: each starts a server, checks it is authenticated, expires the token and kills it mid-refresh. */
const KILL_ROUNDS = 12;
/** Kills land this many milliseconds (uniformly) after the request that triggers the refresh. */
const KILL_SPREAD_MS = 30;
const AUTH = { username: "r3-user", password: "r3-password" };
const IS_WINDOWS = Deno.build.os === "windows";

/** Starts `n` servers on one state dir (same env otherwise) and completes their handshakes together. */
async function startMany(
  n: number,
  extra: Record<string, string>,
): Promise<{ servers: RawServer[]; stateDir: string; cleanup(): Promise<void> }> {
  const made = await Promise.all(Array.from({ length: n }, () => tempHome(extra)));
  const stateDir = made[0].env.CALIMERO_MCP_STATE_DIR;
  const servers = made.map(({ env }) =>
    startServer({ env: { ...env, CALIMERO_MCP_STATE_DIR: stateDir } })
  );
  await Promise.all(servers.map((s) => initialize(s, 30_000)));
  return {
    servers,
    stateDir,
    cleanup: async () => {
      await Promise.all(servers.map((s) => s.exitCode() === null ? s.kill() : null));
      await Promise.all(made.map((m) => m.cleanup()));
    },
  };
}

/** Sends one guarded tool call to every server in the same tick and returns the results. */
async function callAllAtOnce(servers: RawServer[], name: string) {
  const ids = servers.map((s) => s.nextId());
  servers.forEach((s, i) =>
    void s.send({
      jsonrpc: "2.0",
      id: ids[i],
      method: "tools/call",
      params: { name, arguments: {} },
    })
  );
  const answers = await Promise.all(servers.map((s, i) => s.response(ids[i], 30_000)));
  return answers.map((a) => a.result as { isError?: boolean; content?: { text?: string }[] });
}

async function tokenFiles(stateDir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(stateDir)) names.push(entry.name);
  return names.sort();
}

/** The JWT claims of a token (the simulated node's tokens are JWTs). */
function claims(token: string): Record<string, unknown> {
  const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(part));
}

for (const mode of ["token", "credentials"] as const) {
  Deno.test(`R3 (${mode} mode): ${PROCESSES} processes refreshing one expired token spend it once and all end authenticated`, async () => {
    const sim = await startSimNode({ apps: ["kv-store"], auth: AUTH });
    const started = performance.now();
    const injected = mode === "token" ? sim.issueTokens() : null;
    const { servers, stateDir, cleanup } = await startMany(
      PROCESSES,
      injected
        ? {
          CALIMERO_NODE_URL: sim.url,
          CALIMERO_AUTH_TOKEN: injected.access_token,
          CALIMERO_REFRESH_TOKEN: injected.refresh_token,
        }
        : {
          CALIMERO_NODE_URL: sim.url,
          CALIMERO_USERNAME: AUTH.username,
          CALIMERO_PASSWORD: AUTH.password,
        },
    );
    try {
      const before = await callAllAtOnce(servers, "list_applications");
      for (const r of before) {
        assert.ok(!r.isError, `authenticated at start: ${r.content?.[0]?.text}`);
      }
      if (mode === "credentials") {
        assert.equal(sim.stats.logins, 1, "the processes starting together logged in once");
      }
      const files = (await tokenFiles(stateDir)).filter((f) =>
        /^tokens-[0-9a-f]{16}\.json$/.test(f)
      );
      assert.equal(files.length, 1, `one token file: ${files}`);
      const file = `${stateDir}/${files[0]}`;
      const old = JSON.parse(await Deno.readTextFile(file));

      sim.expireTokens();
      const refreshesBefore = sim.stats.refreshes;
      const during = await callAllAtOnce(servers, "list_applications");
      for (const r of during) {
        assert.ok(
          !r.isError,
          `the call that met the expired token succeeded: ${r.content?.[0]?.text}`,
        );
      }
      assert.equal(
        sim.stats.refreshes - refreshesBefore,
        1,
        "exactly one refresh reached the node",
      );
      assert.equal(sim.stats.reuseDetected, 0, "no refresh token was spent twice");

      const after = await callAllAtOnce(servers, "list_contexts");
      for (const r of after) assert.ok(!r.isError, `still authenticated: ${r.content?.[0]?.text}`);
      assert.equal(sim.stats.refreshes - refreshesBefore, 1, "no further refresh");
      assert.equal(sim.stats.logins, mode === "credentials" ? 1 : 0, "no further login");

      const stored = JSON.parse(await Deno.readTextFile(file));
      assert.notEqual(stored.access_token, old.access_token, "the file holds the new pair");
      assert.equal(claims(stored.access_token).iat, claims(stored.refresh_token).iat, "one pair");
      assert.equal(stored.expires_at, claims(stored.access_token).exp);
      if (!IS_WINDOWS) {
        for (const name of await tokenFiles(stateDir)) {
          const mode = (await Deno.stat(`${stateDir}/${name}`)).mode! & 0o777;
          assert.equal(mode & 0o077, 0, `${name} is owner-only (${mode.toString(8)})`);
        }
      }
      report(
        "R3",
        `${mode}: ${PROCESSES} processes, 3 rounds of ${PROCESSES} calls, refreshes ${sim.stats.refreshes}, logins ${sim.stats.logins}, in ${
          Math.round(performance.now() - started)
        } ms`,
      );
    } finally {
      await cleanup();
      await sim.close();
    }
  });
}

/** Why a token file's text is not a whole pair the node issued together, or null when it is. */
function brokenPair(text: string, sim: SimNode): string | null {
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(text);
  } catch {
    return `not JSON: ${JSON.stringify(text.slice(0, 80))}`;
  }
  const { access_token, refresh_token, expires_at } = data;
  if (typeof access_token !== "string" || typeof refresh_token !== "string") {
    return "a token is missing";
  }
  const tokens = sim.state.auth!.tokens;
  const a = claims(access_token);
  const r = claims(refresh_token);
  if (!tokens.has(a.jti as string) || !tokens.has(r.jti as string)) {
    return "a token the node never issued";
  }
  if (a.token_type !== "access" || r.token_type !== "refresh") return "tokens in the wrong fields";
  if (
    a.iat !== r.iat || tokens.get(a.jti as string)!.family !== tokens.get(r.jti as string)!.family
  ) {
    return "an access token and a refresh token from different pairs";
  }
  if (expires_at !== a.exp) return "expires_at does not match the access token";
  return null;
}

Deno.test("R3: a process killed mid-refresh leaves the old or the new pair, never a partial one; the next process authenticates", async () => {
  const sim = await startSimNode({ apps: ["kv-store"], auth: AUTH });
  const { env, cleanup } = await tempHome({
    CALIMERO_NODE_URL: sim.url,
    CALIMERO_USERNAME: AUTH.username,
    CALIMERO_PASSWORD: AUTH.password,
  });
  const stateDir = env.CALIMERO_MCP_STATE_DIR;
  const started = performance.now();
  let polling = true;
  let reads = 0;
  const broken: string[] = [];
  const seen = new Set<string>();
  const poller = (async () => {
    while (polling) {
      for (const name of await tokenFiles(stateDir).catch(() => [])) {
        if (!/^tokens-[0-9a-f]{16}\.json$/.test(name)) continue;
        const text = await Deno.readTextFile(`${stateDir}/${name}`).catch(() => null);
        if (text === null) continue; // deleted (a revoked family is dropped): allowed
        reads++;
        seen.add(text);
        const problem = brokenPair(text, sim);
        if (problem) broken.push(problem);
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  })();
  const outcomes = { unchanged: 0, replaced: 0, recoveredByLogin: 0 };
  try {
    for (let round = 0; round < KILL_ROUNDS; round++) {
      const logins = sim.stats.logins;
      const server = startServer({ env });
      try {
        await initialize(server, 30_000);
        const ok = await callTool(server, "list_applications", {}, 30_000);
        assert.ok(
          !ok.isError,
          `round ${round}: authenticated after the last kill: ${resultText(ok)}`,
        );
        if (round > 0 && sim.stats.logins > logins) outcomes.recoveredByLogin++;
        sim.expireTokens();
        const before = await Deno.readTextFile(`${stateDir}/${await tokenFile(stateDir)}`);
        void server.send({
          jsonrpc: "2.0",
          id: server.nextId(),
          method: "tools/call",
          params: { name: "list_contexts", arguments: {} },
        });
        await new Promise((resolve) => setTimeout(resolve, Math.random() * KILL_SPREAD_MS));
        await server.kill("SIGKILL");
        const name = await tokenFile(stateDir).catch(() => null);
        const now = name ? await Deno.readTextFile(`${stateDir}/${name}`) : null;
        if (now === before) outcomes.unchanged++;
        else outcomes.replaced++;
      } finally {
        if (server.exitCode() === null) await server.kill();
      }
    }
    const last = startServer({ env });
    try {
      await initialize(last, 30_000);
      const ok = await callTool(last, "list_applications", {}, 30_000);
      assert.ok(!ok.isError, `a process after the last kill authenticates: ${resultText(ok)}`);
    } finally {
      await last.kill();
    }
    polling = false;
    await poller;
    assert.deepEqual(broken, [], `every read of the token file was a whole pair (${reads} reads)`);
    assert.ok(reads > KILL_ROUNDS, `the file was read while killing (${reads} reads)`);
    const temps = (await tokenFiles(stateDir)).filter((f) => f.endsWith(".tmp"));
    report(
      "R3",
      `kill: ${KILL_ROUNDS} rounds in ${
        Math.round(performance.now() - started)
      } ms; file unchanged ${outcomes.unchanged}, replaced ${outcomes.replaced}, re-login after a spent refresh token ${outcomes.recoveredByLogin}; ${reads} reads, ${seen.size} distinct contents; ${temps.length} temp files left by kills; node: refreshes ${sim.stats.refreshes}, logins ${sim.stats.logins}, reuse detected ${sim.stats.reuseDetected}`,
    );
  } finally {
    polling = false;
    await poller;
    await sim.close();
    await cleanup();
  }
});

async function tokenFile(stateDir: string): Promise<string> {
  const name = (await tokenFiles(stateDir)).find((f) => /^tokens-[0-9a-f]{16}\.json$/.test(f));
  if (!name) throw new Error(`no token file in ${stateDir}`);
  return name;
}
