import assert from "assert";
import fc from "fast-check";
import { fileURLToPath } from "node:url";
import {
  type HandlePayload,
  issueHandle,
  loadHandleKey,
  readUnverified,
  verifyHandle,
} from "./handle.ts";
import { captureStderr } from "../testing/unit.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HANDLE_MODULE = new URL("./handle.ts", import.meta.url).href;
const isWindows = Deno.build.os === "windows";

const SAMPLE: HandlePayload = {
  a: "5HnQ3rVX9sZy1xTtFfJ7kR8bWc2mP4dN6gL",
  p: "com.calimero.mero-issue-tracker",
  v: "0.3.1",
  g: "0123456789abcdef",
  c: "9xKcPq2LmN4rT6vW8yZ1aB3dE5fG7hJ2kMn",
  s: "issue-tracker",
};

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "mero-mcp-handle-" });
}

/** Keys cannot be exported; two keys are the same key when they sign one payload alike. */
async function fingerprint(key: CryptoKey): Promise<string> {
  return await issueHandle(key, SAMPLE);
}

function b64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function b64urlText(text: string): string {
  return b64url(new TextEncoder().encode(text));
}

/** Signs arbitrary JSON text with the key, as a forger holding the key would: only the parser stops it. */
async function signed(key: CryptoKey, text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes));
  return `${b64url(bytes)}.${b64url(mac)}`;
}

async function assertRejected(key: CryptoKey, handle: string): Promise<void> {
  const result = await verifyHandle(key, handle);
  assert.equal(result.ok, false, `accepted a changed handle: ${handle}`);
  if (!result.ok) assert.match(result.reason, /call select_app again/);
}

const payloadArb: fc.Arbitrary<HandlePayload> = fc.record({
  a: fc.string({ unit: "grapheme", maxLength: 50 }),
  p: fc.string({ unit: "grapheme", maxLength: 50 }),
  v: fc.string({ maxLength: 12 }),
  g: fc.stringMatching(/^[0-9a-f]{16}$/),
  c: fc.option(fc.string({ unit: "grapheme", maxLength: 50 }), { nil: null }),
  s: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
});

Deno.test("a handle verifies with the key that issued it and gives back its payload", async () => {
  const key = await loadHandleKey(await tempDir());
  const handle = await issueHandle(key, SAMPLE);
  assert.match(handle, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  const result = await verifyHandle(key, handle);
  assert.deepEqual(result, { ok: true, payload: SAMPLE });
  assert.deepEqual(Object.keys(result.ok ? result.payload : {}), ["a", "p", "v", "g", "c", "s"]);
});

Deno.test("the payload is JSON with keys in the order a, p, v, g, c, s whatever the input order", async () => {
  const key = await loadHandleKey(await tempDir());
  const shuffled = { s: null, c: null, g: "g", v: "", p: "pkg", a: "id" } as HandlePayload;
  const [body] = (await issueHandle(key, shuffled)).split(".");
  const json = atob(body.replace(/-/g, "+").replace(/_/g, "/"));
  assert.equal(json, '{"a":"id","p":"pkg","v":"","g":"g","c":null,"s":null}');
});

Deno.test("any payload round-trips, including unicode and nulls", async () => {
  const key = await loadHandleKey(await tempDir());
  await fc.assert(
    fc.asyncProperty(payloadArb, async (payload) => {
      const result = await verifyHandle(key, await issueHandle(key, payload));
      assert.deepEqual(result, { ok: true, payload: { ...payload } });
    }),
  );
});

Deno.test("the key persists: a handle from one load verifies after the next load", async () => {
  const dir = await tempDir();
  const handle = await issueHandle(await loadHandleKey(dir), SAMPLE);
  const again = await verifyHandle(await loadHandleKey(dir), handle);
  assert.equal(again.ok, true);
  assert.equal((await Deno.readFile(`${dir}/handle.key`)).length, 32);
});

Deno.test("deleting the key file rotates the key and makes old handles stale", async () => {
  const dir = await tempDir();
  const handle = await issueHandle(await loadHandleKey(dir), SAMPLE);
  await Deno.remove(`${dir}/handle.key`);
  const result = await verifyHandle(await loadHandleKey(dir), handle);
  assert.equal(result.ok, false);
  if (!result.ok) assert.match(result.reason, /not issued by this server.*call select_app again/);
});

Deno.test({
  name: "the key file is created owner-only (0600)",
  ignore: isWindows,
  fn: async () => {
    const dir = await tempDir();
    await loadHandleKey(dir);
    assert.equal((await Deno.stat(`${dir}/handle.key`)).mode! & 0o777, 0o600);
  },
});

Deno.test({
  name: "an existing key readable by others is kept and made owner-only, with a warning",
  ignore: isWindows,
  fn: async () => {
    const dir = await tempDir();
    const handle = await issueHandle(await loadHandleKey(dir), SAMPLE);
    await Deno.chmod(`${dir}/handle.key`, 0o644);
    let key!: CryptoKey;
    const stderr = await captureStderr(async () => key = await loadHandleKey(dir));
    assert.match(stderr, /owner-only/);
    assert.equal((await verifyHandle(key, handle)).ok, true);
    assert.equal((await Deno.stat(`${dir}/handle.key`)).mode! & 0o777, 0o600);
  },
});

const WRONG_LENGTHS = [
  { name: "an empty file", bytes: 0 },
  { name: "a short file", bytes: 10 },
  { name: "a long file", bytes: 33 },
  { name: "a much longer file", bytes: 1000 },
];

for (const { name, bytes } of WRONG_LENGTHS) {
  Deno.test(`${name} (${bytes} bytes) as key is replaced by a 32-byte key, with a warning`, async () => {
    const dir = await tempDir();
    const file = `${dir}/handle.key`;
    await Deno.writeFile(file, new Uint8Array(bytes).fill(7), { mode: 0o600 });
    // Old enough that no process can still be writing it, so no wait is needed.
    await Deno.utime(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    let key!: CryptoKey;
    const stderr = await captureStderr(async () => key = await loadHandleKey(dir));
    assert.match(stderr, new RegExp(`has ${bytes} bytes instead of 32; replacing it`));
    const stored = await Deno.readFile(file);
    assert.equal(stored.length, 32);
    assert.notDeepEqual(stored, new Uint8Array(32).fill(7));
    // The replacement is what later loads read.
    assert.equal(await fingerprint(await loadHandleKey(dir)), await fingerprint(key));
  });
}

Deno.test("a key file that is still being filled is waited for, not replaced", async () => {
  const dir = await tempDir();
  const file = `${dir}/handle.key`;
  const writer = await Deno.open(file, { write: true, createNew: true, mode: 0o600 });
  const loading = loadHandleKey(dir); // sees an empty, freshly written file: waits for its writer
  const key = crypto.getRandomValues(new Uint8Array(32));
  await writer.write(key);
  writer.close();
  const expected = await crypto.subtle.importKey(
    "raw",
    key,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  assert.equal(await fingerprint(await loading), await fingerprint(expected));
});

Deno.test("concurrent loads in one process end with one key", async () => {
  const dir = await tempDir();
  const keys = await Promise.all(Array.from({ length: 16 }, () => loadHandleKey(dir)));
  const prints = new Set(await Promise.all(keys.map(fingerprint)));
  assert.equal(prints.size, 1);
  assert.equal(prints.has(await fingerprint(await loadHandleKey(dir))), true);
});

/** Starts a process that loads the key once told to on stdin, and prints a handle for SAMPLE. */
function keyProcess(args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

function keyProcessCode(dir: string): string {
  return `
    import { issueHandle, loadHandleKey } from ${JSON.stringify(HANDLE_MODULE)};
    const out = (s) => Deno.stdout.writeSync(new TextEncoder().encode(s + "\\n"));
    out("ready");
    for await (const _ of Deno.stdin.readable) break; // the go signal
    const key = await loadHandleKey(${JSON.stringify(dir)});
    out(await issueHandle(key, ${JSON.stringify(SAMPLE)}));
  `;
}

/** Waits for every process to say "ready", releases them together, returns each one's last line. */
async function raceProcesses(children: Deno.ChildProcess[]): Promise<string[]> {
  const readers = children.map((c) => c.stdout.pipeThrough(new TextDecoderStream()).getReader());
  for (const reader of readers) {
    let seen = "";
    while (!seen.includes("ready\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`a key process exited before it was ready: ${seen}`);
      seen += value;
    }
  }
  await Promise.all(children.map(async (c) => {
    const writer = c.stdin.getWriter();
    await writer.write(new TextEncoder().encode("go\n"));
    await writer.close();
  }));
  const outputs = await Promise.all(readers.map(async (reader) => {
    let rest = "";
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += value;
    }
    return rest.trim();
  }));
  const statuses = await Promise.all(children.map((c) => c.output()));
  statuses.forEach((s) => assert.equal(s.code, 0, new TextDecoder().decode(s.stderr)));
  return outputs;
}

Deno.test("processes started together (deno eval) end with one key", async () => {
  const dir = await tempDir();
  const code = keyProcessCode(dir);
  const children = Array.from({ length: 4 }, () => keyProcess(["eval", "--quiet", code]));
  const handles = await raceProcesses(children);
  assert.equal(new Set(handles).size, 1, handles.join("\n"));
  assert.equal(handles[0], await fingerprint(await loadHandleKey(dir)));
});

Deno.test("the key loads in a sandbox allowing read/write on the state dir only", async () => {
  const dir = await tempDir();
  const scriptDir = await tempDir();
  const script = `${scriptDir}/load_key.ts`;
  await Deno.writeTextFile(script, keyProcessCode(dir));
  const sandbox = [
    "run",
    "--quiet",
    "--no-prompt",
    `--allow-read=${dir}`,
    `--allow-write=${dir}`,
    script,
  ];
  const [created] = await raceProcesses([keyProcess(sandbox)]);
  assert.equal(created, await fingerprint(await loadHandleKey(dir)));
  // A wrong-length file is replaced inside the sandbox too (stat, lock, chmod need nothing more).
  await Deno.writeFile(`${dir}/handle.key`, new Uint8Array(5));
  await Deno.utime(`${dir}/handle.key`, new Date(0), new Date(0));
  const [replaced] = await raceProcesses([keyProcess(sandbox)]);
  assert.notEqual(replaced, created);
  assert.equal(replaced, await fingerprint(await loadHandleKey(dir)));
});

Deno.test("every single-character change of a handle is refused", async () => {
  const key = await loadHandleKey(await tempDir());
  const handle = await issueHandle(key, SAMPLE);
  const alphabet = `${B64URL_ALPHABET}.=+/ `;
  for (let i = 0; i < handle.length; i++) {
    for (const ch of alphabet) {
      if (ch === handle[i]) continue;
      await assertRejected(key, handle.slice(0, i) + ch + handle.slice(i + 1));
    }
  }
});

type Mutation = { kind: string; make: (key: CryptoKey, handle: string) => Promise<string> };

const B64URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const FIELDS = ["a", "p", "v", "g", "c", "s"] as const;

/** Mutations of a valid handle, each drawn from its own arbitrary; none may be accepted. */
function mutationArb(payload: HandlePayload): fc.Arbitrary<Mutation> {
  const [bodyOf, macOf] = [(h: string) => h.split(".")[0], (h: string) => h.split(".")[1]];
  return fc.oneof(
    fc.record({ at: fc.nat(), ch: fc.constantFrom(..."Aa0-_.=Zz9+/ \n\u00e9") }).map((
      { at, ch },
    ) => ({
      kind: `replace char ${at} with ${JSON.stringify(ch)}`,
      make: (_k: CryptoKey, h: string) => {
        const i = at % h.length;
        return Promise.resolve(
          h[i] === ch ? h.slice(0, i) + h.slice(i + 1) : h.slice(0, i) + ch + h.slice(i + 1),
        );
      },
    })),
    fc.record({ part: fc.constantFrom(0, 1), ch: fc.constantFrom(...B64URL_ALPHABET) })
      .map(({ part, ch }) => ({
        kind: `last character of part ${part} set to ${ch}`,
        make: (_k: CryptoKey, h: string) => {
          const parts = h.split(".");
          parts[part] = parts[part].slice(0, -1) + ch;
          return Promise.resolve(parts.join("."));
        },
      })),
    fc.nat().map((n) => ({
      kind: `truncate by ${n + 1}`,
      make: (_k: CryptoKey, h: string) =>
        Promise.resolve(h.slice(0, Math.max(0, h.length - 1 - n))),
    })),
    fc.string({ minLength: 1, maxLength: 4 }).map((extra) => ({
      kind: `append ${JSON.stringify(extra)}`,
      make: (_k: CryptoKey, h: string) => Promise.resolve(h + extra),
    })),
    fc.constant({
      kind: "swap parts",
      make: (_k: CryptoKey, h: string) => Promise.resolve(`${macOf(h)}.${bodyOf(h)}`),
    }),
    fc.constant({
      kind: "third part",
      make: (_k: CryptoKey, h: string) => Promise.resolve(`${h}.${macOf(h)}`),
    }),
    fc.record({ field: fc.constantFrom(...FIELDS), value: fc.option(fc.string(), { nil: null }) })
      .filter(({ field, value }) => value !== payload[field])
      .map(({ field, value }) => ({
        kind: `field ${field} changed to ${JSON.stringify(value)}, old MAC`,
        make: (_k: CryptoKey, h: string) =>
          Promise.resolve(
            `${b64urlText(JSON.stringify({ ...payload, [field]: value }))}.${macOf(h)}`,
          ),
      })),
    fc.shuffledSubarray([...FIELDS], { minLength: 6, maxLength: 6 })
      .filter((order) => order.join() !== FIELDS.join())
      .chain((order) =>
        fc.boolean().map((resign) => ({
          kind: `keys in order ${order.join()}, ${resign ? "signed with the key" : "old MAC"}`,
          make: async (k: CryptoKey, h: string) => {
            const text = JSON.stringify(Object.fromEntries(order.map((f) => [f, payload[f]])));
            return resign ? await signed(k, text) : `${b64urlText(text)}.${macOf(h)}`;
          },
        }))
      ),
  );
}

Deno.test("no mutation of a valid handle is accepted (R6)", async () => {
  const key = await loadHandleKey(await tempDir());
  await fc.assert(
    fc.asyncProperty(
      payloadArb.chain((payload) => fc.tuple(fc.constant(payload), mutationArb(payload))),
      async ([payload, mutation]) => {
        const handle = await issueHandle(key, payload);
        const changed = await mutation.make(key, handle);
        if (changed === handle) return; // e.g. a field set to its own value: not a mutation
        await assertRejected(key, changed);
      },
    ),
    { numRuns: 2000 },
  );
});

const FORGED_WITH_KEY: { name: string; json: string }[] = [
  { name: "whitespace", json: '{ "a":"x","p":"x","v":"","g":"g","c":null,"s":null}' },
  { name: "a missing key", json: '{"a":"x","p":"x","v":"","g":"g","c":null}' },
  { name: "an extra key", json: '{"a":"x","p":"x","v":"","g":"g","c":null,"s":null,"x":1}' },
  { name: "a duplicate key", json: '{"a":"x","a":"x","p":"x","v":"","g":"g","c":null,"s":null}' },
  { name: "a number for a string", json: '{"a":1,"p":"x","v":"","g":"g","c":null,"s":null}' },
  { name: "null for a string", json: '{"a":"x","p":null,"v":"","g":"g","c":null,"s":null}' },
  { name: "an object for c", json: '{"a":"x","p":"x","v":"","g":"g","c":{},"s":null}' },
  { name: "an escaped letter", json: '{"a":"\\u0078","p":"x","v":"","g":"g","c":null,"s":null}' },
  { name: "an array", json: '["x","x","","g",null,null]' },
  { name: "null", json: "null" },
  { name: "a string", json: '"x"' },
  { name: "not JSON", json: "{a:x}" },
  { name: "a byte-order mark", json: '\ufeff{"a":"x","p":"x","v":"","g":"g","c":null,"s":null}' },
];

for (const { name, json } of FORGED_WITH_KEY) {
  Deno.test(`a correctly signed payload with ${name} is refused`, async () => {
    const key = await loadHandleKey(await tempDir());
    await assertRejected(key, await signed(key, json));
  });
}

const MALFORMED = [
  "",
  ".",
  "abc",
  "a.b.c",
  "abc.",
  ".abc",
  "YQ==.YQ",
  "YQ.YQ==",
  "Y.YQ",
  "é.é",
  "a b.c",
];

for (const handle of MALFORMED) {
  Deno.test(`the malformed handle ${JSON.stringify(handle)} is refused`, async () => {
    await assertRejected(await loadHandleKey(await tempDir()), handle);
  });
}

Deno.test("a handle issued under another key is refused", async () => {
  const handle = await issueHandle(await loadHandleKey(await tempDir()), SAMPLE);
  await assertRejected(await loadHandleKey(await tempDir()), handle);
});

Deno.test("readUnverified routes by the claimed payload but never vouches for it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const key = await loadHandleKey(dir);
    const payload = {
      a: "App1",
      p: "com.x.app",
      v: "1.0.0",
      g: "0123456789abcdef",
      c: "Ctx",
      s: null,
    };
    const handle = await issueHandle(key, payload);
    assert.deepEqual(readUnverified(handle), payload);
    assert.deepEqual(
      readUnverified(`${handle.split(".")[0]}.forged`),
      payload,
      "the MAC is not read",
    );
    assert.equal(readUnverified("not a handle"), null);
    assert.equal(readUnverified("x".repeat(10_000)), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
