import assert from "node:assert/strict";
import {
  type Claim,
  markEchoes,
  readClaims,
  recordedOwnWrites,
  WRITES_DIR,
} from "./shared_writes.ts";
import type { Entry } from "./log.ts";

const change = (seq: number, at: number): Entry => ({
  seq,
  at,
  type: "StateMutation",
  data: null,
  bytes: 0,
});

Deno.test("a claim accounts for one state change that arrived after it began and before its echo window closed", () => {
  const claims: Claim[] = [
    { name: "c.1000.1-1", start: 1_000, until: 1_300 }, // answered at 1,100, echo until 1,300
    { name: "c.2000.1-2", start: 2_000, until: null }, // still in flight
  ];
  const entries = [change(1, 900), change(2, 1_050), change(3, 1_100), change(4, 2_500)];
  const spent = new Set<string>();
  assert.equal(markEchoes(entries, claims, spent), 2);
  // Before any write began: another party's. The first claim covers one change only; the in-flight one the last.
  assert.deepEqual(entries.map((e) => e.own ?? false), [false, true, false, true]);
  // A claim is spent once, also across bursts.
  const later = [change(5, 2_600)];
  assert.equal(markEchoes(later, claims, spent), 0);
  assert.equal(later[0].own, undefined);
});

Deno.test("a change after a claim's echo window is another party's", () => {
  const entries = [change(1, 1_400)];
  assert.equal(markEchoes(entries, [{ name: "c", start: 1_000, until: 1_300 }], new Set()), 0);
});

Deno.test("a server's writes are claimed in the state directory, read back per context, and answered claims say until when", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const own = recordedOwnWrites(dir);
    const finish = own.begin("ctxA");
    own.begin("ctxB");
    await new Promise((r) => setTimeout(r, 50));
    let claims = await readClaims(dir, "ctxA");
    assert.equal(claims.length, 1);
    assert.equal(claims[0].until, null, "in flight");
    finish(true);
    await new Promise((r) => setTimeout(r, 50));
    claims = await readClaims(dir, "ctxA");
    assert.ok(
      claims[0].until !== null && claims[0].until > Date.now(),
      "answered: echo window open",
    );
    assert.equal((await readClaims(dir, "ctxB")).length, 1);
    assert.equal((await readClaims(dir, "other")).length, 0);
    // The in-memory record is the server's own, as before.
    assert.equal(own.claim("ctxA"), true);
    const mode = (await Deno.stat(`${dir}/${WRITES_DIR}`)).mode! & 0o777;
    assert.equal(mode, 0o700);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a claim left in flight by a process that died is ignored and removed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/${WRITES_DIR}`);
    const old = Date.now() - 10 * 60_000;
    await Deno.writeTextFile(`${dir}/${WRITES_DIR}/ctx.${old}.1-1`, "");
    assert.deepEqual(await readClaims(dir, "ctx"), []);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual([...Deno.readDirSync(`${dir}/${WRITES_DIR}`)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
