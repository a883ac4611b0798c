import assert from "assert";
import {
  createTokenStore,
  credentialIdentity,
  injectedWins,
  refreshOnce,
  type StoredTokens,
  storedTokens,
  tokenFileName,
  TokenLockTimeout,
} from "./tokens.ts";
import { captureStderr } from "../testing/unit.ts";

// This file doubles as the child process of the cross-process tests: `deno run src/node/tokens_test.ts <role> …`.
const CHILD_PERMISSIONS = ["--allow-read", "--allow-write", "--allow-net=127.0.0.1,localhost"];
const isWindows = Deno.build.os === "windows";

// ---- helpers ---------------------------------------------------------------------------------------------

/** An unsigned JWT carrying `claims` (only the payload is ever read). */
function jwt(claims: Record<string, unknown>): string {
  const encode = (v: unknown) =>
    btoa(JSON.stringify(v)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${encode({ alg: "HS256", typ: "JWT" })}.${encode(claims)}.c2ln`;
}

async function tempStore(identity = "") {
  const stateDir = `${await Deno.makeTempDir({ prefix: "mero-tokens-" })}/state`;
  return await createTokenStore({ stateDir, nodeUrl: "http://127.0.0.1:2528", identity });
}

/**
 * A fake `/auth/refresh` that counts calls and enforces single use: each refresh token works once, a replay
 * answers 401 token_reuse. Requests wait at `/barrier` until `expected` callers have arrived.
 */
function fakeRefreshEndpoint(expected = 0) {
  const stats = { refreshes: 0, reuses: 0, arrived: 0 };
  const spent = new Set<string>();
  let release: () => void = () => {};
  const everyone = new Promise<void>((resolve) => release = resolve);
  let generation = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/barrier") {
      if (++stats.arrived >= expected) release();
      await everyone;
      return new Response("go");
    }
    const body = await req.json();
    if (spent.has(body.refresh_token)) {
      stats.reuses++;
      return new Response(null, { status: 401, headers: { "x-auth-error": "token_reuse" } });
    }
    spent.add(body.refresh_token);
    stats.refreshes++;
    generation++;
    return Response.json({
      data: {
        access_token: jwt({ iat: 2000 + generation, gen: generation }),
        refresh_token: `refresh-${generation}`,
      },
    });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, stats, close: () => server.shutdown() };
}

async function callRefresh(url: string, stored: StoredTokens | null): Promise<StoredTokens | null> {
  if (stored?.refreshToken == null) return null;
  const res = await fetch(`${url}/auth/refresh`, {
    method: "POST",
    body: JSON.stringify({ access_token: stored.accessToken, refresh_token: stored.refreshToken }),
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`refresh failed: ${res.status} ${res.headers.get("x-auth-error")}`);
  }
  const { data } = await res.json();
  return storedTokens(data.access_token, data.refresh_token);
}

const OLD = storedTokens(jwt({ iat: 1000, exp: 1060 }), "refresh-0");

// ---- child roles -----------------------------------------------------------------------------------------

async function childMain(args: string[]): Promise<void> {
  const [role, stateDir, nodeUrl] = args;
  const store = await createTokenStore({ stateDir, nodeUrl, identity: "" });
  if (role === "refresh") {
    const endpoint = args[3];
    await (await fetch(`${endpoint}/barrier`)).text();
    const result = await refreshOnce(
      store,
      OLD.accessToken,
      20_000,
      (s) => callRefresh(endpoint, s),
    );
    Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(result)));
  } else if (role === "hold") {
    await store.withLock(5_000, async () => {
      Deno.stdout.writeSync(new TextEncoder().encode("locked\n"));
      await new Promise(() => setInterval(() => {}, 60_000)); // hold until killed
    });
  } else if (role === "write-loop") {
    for (let i = 0;; i++) {
      await store.write(storedTokens(jwt({ iat: i, pad: "x".repeat(i % 5000) }), `refresh-${i}`));
      if (i === 20) Deno.stdout.writeSync(new TextEncoder().encode("writing\n"));
    }
  }
}

if (import.meta.main) await childMain(Deno.args);

function spawnChild(args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...CHILD_PERMISSIONS, import.meta.url, ...args],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
}

/** Resolves when the child prints `line` on stdout. */
async function waitForLine(child: Deno.ChildProcess, line: string): Promise<void> {
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes(`${line}\n`)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`child exited before printing "${line}"`);
    seen += value;
  }
  reader.releaseLock();
}

// ---- file names ------------------------------------------------------------------------------------------

Deno.test("the token file name hashes the canonical URL and the credential's identity", async () => {
  // printf 'http://localhost:2528\0' | sha256sum → 7d13f23aeedd5443…
  assert.equal(await tokenFileName("http://localhost:2528", ""), "tokens-7d13f23aeedd5443.json");
  // A login's file keeps the name earlier versions gave it (url, NUL, username).
  const alice = credentialIdentity("credentials", { authToken: null, username: "alice" });
  assert.equal(await tokenFileName("http://localhost:2528", alice), "tokens-a6aa1c4c16636591.json");
  for (const spelling of ["http://127.0.0.1:2528/", "HTTP://[::1]:2528", "http://LOCALHOST:2528"]) {
    assert.equal(await tokenFileName(spelling, ""), "tokens-7d13f23aeedd5443.json", spelling);
  }
  assert.notEqual(
    await tokenFileName("http://localhost:2528/node1", ""),
    await tokenFileName("http://localhost:2528", ""),
  );
});

Deno.test("different credentials for one node never share a token file", async () => {
  const url = "http://localhost:2528";
  const names = await Promise.all([
    tokenFileName(url, credentialIdentity("handoff", { authToken: "k", username: "alice" })),
    tokenFileName(url, credentialIdentity("token", { authToken: "key-1", username: null })),
    tokenFileName(url, credentialIdentity("token", { authToken: "key-2", username: null })),
    tokenFileName(url, credentialIdentity("credentials", { authToken: null, username: "alice" })),
    tokenFileName(url, credentialIdentity("credentials", { authToken: null, username: "bob" })),
  ]);
  assert.equal(new Set(names).size, names.length, names.join(" "));
  assert.equal(
    await tokenFileName(url, credentialIdentity("token", { authToken: "key-1", username: "x" })),
    names[1],
    "two instances given one key share its file (and its single-use refresh token)",
  );
  for (const name of names) assert.ok(!name.includes("key"), "the token is hashed, not shown");
});

// ---- reading and writing ---------------------------------------------------------------------------------

Deno.test("a written pair reads back, stored in snake_case with its expiry", async () => {
  const store = await tempStore();
  assert.equal(await store.read(), null);
  await store.write(OLD);
  assert.deepEqual(await store.read(), { ...OLD, expiresAt: 1060 });
  assert.deepEqual(JSON.parse(await Deno.readTextFile(store.file)), {
    access_token: OLD.accessToken,
    refresh_token: "refresh-0",
    expires_at: 1060,
  });
  await store.clear();
  assert.equal(await store.read(), null);
  await store.clear(); // clearing an empty store is fine
});

Deno.test("token, lock and directory are created owner-only", { ignore: isWindows }, async () => {
  const store = await tempStore();
  await store.write(OLD);
  await store.withLock(1000, () => Promise.resolve());
  const dir = store.file.slice(0, store.file.lastIndexOf("/"));
  assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
  assert.equal((await Deno.stat(store.file)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(store.lockFile)).mode! & 0o777, 0o600);
  assert.equal((await Deno.readTextFile(store.lockFile)).trim(), String(Deno.pid));
  assert.deepEqual(
    [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".tmp")),
    [],
    "no temporary file is left behind",
  );
});

Deno.test("an invalid token file warns and reads as empty", async () => {
  const cases = [
    "{not json",
    "[]",
    '{"refresh_token":"r"}',
    '{"access_token":"", "refresh_token":"r"}',
  ];
  for (const text of cases) {
    const store = await tempStore();
    await store.write(OLD);
    await Deno.writeTextFile(store.file, text);
    let read: unknown = "unset";
    const stderr = await captureStderr(async () => read = await store.read());
    assert.equal(read, null, text);
    assert.match(stderr, /is not valid: treating it as empty/, text);
  }
});

Deno.test("readers never see a partial file while another process keeps rewriting it", async () => {
  const store = await tempStore();
  const child = spawnChild([
    "write-loop",
    store.file.slice(0, store.file.lastIndexOf("/")),
    "http://127.0.0.1:2528",
  ]);
  try {
    await waitForLine(child, "writing");
    for (let i = 0; i < 300; i++) {
      const stderr = await captureStderr(async () => assert.notEqual(await store.read(), null));
      assert.equal(stderr, "");
    }
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
  // Killed mid-write: the file is still a whole pair.
  const after = await store.read();
  assert.ok(after !== null && after.refreshToken?.startsWith("refresh-"));
});

// ---- the injection rule ----------------------------------------------------------------------------------

Deno.test("an injected token replaces the cache when it is empty, may do other things, or is strictly newer by iat", () => {
  const at = (iat: number | null) =>
    storedTokens(jwt(iat === null ? { exp: 99 } : { iat, exp: iat + 60 }), `r${iat}`);
  const cases: [string, StoredTokens | null, StoredTokens, boolean][] = [
    ["empty cache", null, at(5), true],
    ["empty cache, opaque token", null, storedTokens("opaque", null), true],
    ["newer iat", at(5), at(6), true],
    ["older iat", at(6), at(5), false],
    ["same iat", at(5), storedTokens(jwt({ iat: 5, other: 1 }), "x"), false],
    ["cached without iat", at(null), at(6), false],
    ["injected without iat", at(5), at(null), false],
    ["opaque cached token", storedTokens("opaque", null), at(6), false],
    ["the same token again", at(5), at(5), false],
    [
      "a newer cached pair with other permissions",
      storedTokens(jwt({ iat: 9, permissions: ["admin"] }), "a"),
      storedTokens(jwt({ iat: 5, permissions: ["context:list"] }), "k"),
      true,
    ],
    [
      "a newer cached pair with the same permissions",
      storedTokens(jwt({ iat: 9, permissions: ["blob", "context:list"] }), "a"),
      storedTokens(jwt({ iat: 5, permissions: ["context:list", "blob"] }), "k"),
      false,
    ],
  ];
  for (const [what, cached, injected, expected] of cases) {
    assert.equal(injectedWins(cached, injected), expected, what);
  }
});

Deno.test("inject keeps a refreshed pair and takes a newer handoff token", async () => {
  const store = await tempStore();
  assert.deepEqual(await store.inject(OLD), OLD, "empty store takes the injected pair");
  const refreshed = storedTokens(jwt({ iat: 1100 }), "refresh-1");
  await store.write(refreshed);
  assert.deepEqual(await store.inject(OLD), refreshed, "the old injected token does not come back");
  assert.deepEqual(await store.read(), refreshed);
  const newer = storedTokens(jwt({ iat: 1200 }), "handoff-2");
  assert.deepEqual(await store.inject(newer), newer);
  assert.deepEqual(await store.read(), newer);
});

// ---- the refresh lock ------------------------------------------------------------------------------------

Deno.test("8 concurrent refreshers in one process spend the refresh token once", async () => {
  const endpoint = fakeRefreshEndpoint();
  try {
    const store = await tempStore();
    await store.write(OLD);
    const results = await Promise.all(
      Array.from({ length: 8 }, async () => {
        // Separate store objects: only the shared file and its lock connect them.
        const own = await createTokenStore({
          stateDir: store.file.slice(0, store.file.lastIndexOf("/")),
          nodeUrl: "http://localhost:2528",
          identity: "",
        });
        return await refreshOnce(own, OLD.accessToken, 5_000, (s) => callRefresh(endpoint.url, s));
      }),
    );
    assert.equal(endpoint.stats.refreshes, 1);
    assert.equal(endpoint.stats.reuses, 0);
    const stored = await store.read();
    assert.equal(stored?.refreshToken, "refresh-1");
    for (const r of results) assert.deepEqual(r, stored);
  } finally {
    await endpoint.close();
  }
});

Deno.test("8 processes refreshing one expired token spend it exactly once and all end with the new pair", async () => {
  const endpoint = fakeRefreshEndpoint(8);
  try {
    const store = await tempStore();
    await store.write(OLD);
    const stateDir = store.file.slice(0, store.file.lastIndexOf("/"));
    const children = Array.from(
      { length: 8 },
      (_, i) =>
        spawnChild([
          "refresh",
          stateDir,
          i % 2 ? "http://127.0.0.1:2528/" : "http://localhost:2528",
          endpoint.url,
        ]),
    );
    const outputs = await Promise.all(children.map((c) => c.output()));
    for (const o of outputs) assert.equal(o.code, 0);
    assert.equal(endpoint.stats.refreshes, 1, "one refresh reached the node");
    assert.equal(endpoint.stats.reuses, 0, "no refresh token was replayed");
    const stored = await store.read();
    assert.equal(stored?.refreshToken, "refresh-1");
    for (const o of outputs) {
      assert.deepEqual(JSON.parse(new TextDecoder().decode(o.stdout)), stored);
    }
  } finally {
    await endpoint.close();
  }
});

Deno.test("waiting for a lock held elsewhere gives up with a message naming the holder", async () => {
  const store = await tempStore();
  const stateDir = store.file.slice(0, store.file.lastIndexOf("/"));
  const holder = spawnChild(["hold", stateDir, "http://localhost:2528"]);
  try {
    await waitForLine(holder, "locked");
    await assert.rejects(store.withLock(50, () => Promise.resolve()), (err: Error) => {
      assert.ok(err instanceof TokenLockTimeout);
      assert.match(
        err.message,
        new RegExp(`^Waited 50 ms for another mero-mcp process \\(pid ${holder.pid}\\)`),
      );
      assert.ok(err.message.includes(store.lockFile));
      return true;
    });
  } finally {
    holder.kill("SIGKILL");
    await holder.status;
  }
});

Deno.test("a process killed while holding the lock does not block the others", async () => {
  const store = await tempStore();
  const stateDir = store.file.slice(0, store.file.lastIndexOf("/"));
  const holder = spawnChild(["hold", stateDir, "http://localhost:2528"]);
  await waitForLine(holder, "locked");
  await assert.rejects(
    store.withLock(20, () => Promise.resolve()),
    TokenLockTimeout,
    "held while alive",
  );
  holder.kill("SIGKILL");
  await holder.status;
  assert.equal(await store.withLock(2_000, () => Promise.resolve("taken")), "taken");
});

Deno.test("a refresh that finds another already replaced the token does not call the node", async () => {
  const store = await tempStore();
  const newer = storedTokens(jwt({ iat: 1100 }), "refresh-1");
  await store.write(newer);
  let calls = 0;
  const result = await refreshOnce(store, OLD.accessToken, 1000, () => {
    calls++;
    return Promise.resolve(null);
  });
  assert.equal(calls, 0);
  assert.deepEqual(result, newer);
});

Deno.test("a refresh that yields nothing leaves the store as it was", async () => {
  const store = await tempStore();
  await store.write(OLD);
  assert.equal(await refreshOnce(store, OLD.accessToken, 1000, () => Promise.resolve(null)), null);
  assert.deepEqual(await store.read(), OLD);
});

Deno.test("the store and its lock work in a worker that may touch only the state dir", async () => {
  const stateDir = await Deno.makeTempDir({ prefix: "mero-sandbox-" });
  const source = `
    import { createTokenStore, refreshOnce, storedTokens } from "${
    new URL("./tokens.ts", import.meta.url).href
  }";
    self.onmessage = async (event: MessageEvent<string>) => {
      try {
        const store = await createTokenStore({ stateDir: event.data, nodeUrl: "http://localhost:2528", identity: "" });
        await store.write(storedTokens("old", "refresh-0"));
        const after = await refreshOnce(store, "old", 1000, () => Promise.resolve(storedTokens("new", "refresh-1")));
        let outside = "readable";
        try { await Deno.readTextFile(new URL("${import.meta.url}")); } catch (err) { outside = (err as Error).name; }
        self.postMessage({ after, outside });
      } catch (err) {
        self.postMessage({ failed: String(err) });
      }
    };`;
  const url = URL.createObjectURL(new Blob([source], { type: "application/typescript" }));
  const worker = new Worker(url, {
    type: "module",
    deno: {
      permissions: {
        read: [stateDir],
        write: [stateDir],
        net: false,
        env: false,
        run: false,
        sys: false,
        ffi: false,
        import: false,
      },
    },
  });
  try {
    const reply = await new Promise((resolve) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.postMessage(stateDir);
    });
    assert.deepEqual(reply, {
      after: { accessToken: "new", refreshToken: "refresh-1", expiresAt: null },
      outside: "NotCapable",
    });
  } finally {
    worker.terminate();
    URL.revokeObjectURL(url);
  }
});

Deno.test("a stored token that differs from the failed one but is past its exp is refreshed itself", async () => {
  const store = await tempStore();
  const stale = storedTokens(jwt({ iat: 1100, exp: 1160 }), "refresh-1");
  await store.write(stale);
  const seen: (StoredTokens | null)[] = [];
  const fresh = storedTokens(jwt({ iat: 1200 }), "refresh-2");
  const result = await refreshOnce(store, OLD.accessToken, 1000, (stored) => {
    seen.push(stored);
    return Promise.resolve(fresh);
  });
  assert.deepEqual(seen, [stale]);
  assert.deepEqual(result, fresh);
  assert.deepEqual(await store.read(), fresh);
});

Deno.test("opening a store removes old temp files a killed writer left and tightens loose token files", async () => {
  if (Deno.build.os === "windows") return;
  const dir = await Deno.makeTempDir();
  try {
    const store = await createTokenStore({
      stateDir: dir,
      nodeUrl: "http://localhost:1",
      identity: "",
    });
    await store.write(storedTokens("a.b.c", "r"));
    const stale = `${store.file}.999-deadbeef.tmp`;
    const fresh = `${store.file}.998-cafebabe.tmp`;
    await Deno.writeTextFile(stale, "{");
    await Deno.writeTextFile(fresh, "{");
    const old = new Date(Date.now() - 3600_000);
    await Deno.utime(stale, old, old);
    await Deno.chmod(store.file, 0o644);
    await createTokenStore({ stateDir: dir, nodeUrl: "http://localhost:1", identity: "" });
    await assert.rejects(() => Deno.stat(stale), Deno.errors.NotFound);
    await Deno.stat(fresh); // a temp file this young may belong to a live writer
    assert.equal((await Deno.stat(store.file)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
