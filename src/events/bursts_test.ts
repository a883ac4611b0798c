import assert from "node:assert/strict";
import { type Burst, createBursts, MAX_NAMES, recount } from "./bursts.ts";
import type { Entry } from "./log.ts";

const entry = (seq: number, extra: Partial<Entry> = {}): Entry => ({
  seq,
  at: Date.now(),
  type: "StateMutation",
  data: null,
  bytes: 0,
  ...extra,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("a flood of 100,000 events in one context is one burst of counts, told once", async () => {
  const told: Burst[] = [];
  const bursts = createBursts({
    onBurst: (b) => told.push(b),
    namesOf: (e) => [`Event${e.seq % 50}`],
    settleMs: 20,
    intervalMs: 200,
  });
  for (let seq = 1; seq <= 100_000; seq++) bursts.add("ctx", entry(seq));
  assert.equal(bursts.open(), 1);
  await sleep(60);
  assert.equal(told.length, 1);
  const [burst] = told;
  assert.equal(burst.count, 100_000);
  assert.equal(burst.after, 0);
  assert.equal(burst.through, 100_000);
  assert.equal(burst.names.size, MAX_NAMES, "names are bounded; the rest are counted together");
  assert.equal(
    [...burst.names.values()].reduce((a, b) => a + b, 0) + burst.otherNames,
    100_000,
  );
  bursts.close();
});

Deno.test("after a telling, the next burst of the same context waits out the interval", async () => {
  const told: { at: number; burst: Burst }[] = [];
  const bursts = createBursts({
    onBurst: (burst) => told.push({ at: Date.now(), burst }),
    namesOf: () => ["Inserted"],
    settleMs: 10,
    intervalMs: 300,
  });
  const start = Date.now();
  bursts.add("ctx", entry(1));
  await sleep(50);
  bursts.add("ctx", entry(2));
  bursts.add("other", entry(3)); // another context is paced on its own
  await sleep(100);
  assert.equal(told.length, 2, "the first of ctx and the first of other");
  await sleep(300);
  assert.equal(told.length, 3);
  assert.ok(told[2].at - told[0].at >= 290, "at most one telling per interval");
  assert.equal(told[2].burst.after, 1);
  assert.ok(told[0].at - start < 100);
  bursts.close();
});

Deno.test("own echoes open no burst, ride along in one, and sync chatter is not news; gaps are", async () => {
  const told: Burst[] = [];
  const bursts = createBursts({
    onBurst: (b) => told.push(b),
    namesOf: (e) => e.type === "SyncStatus" ? [] : ["Inserted"],
    settleMs: 10,
    intervalMs: 10,
  });
  bursts.add("ctx", entry(1, { own: true }));
  bursts.add("ctx", entry(2, { type: "SyncStatus" }));
  await sleep(40);
  assert.equal(told.length, 0);
  bursts.add("ctx", entry(3));
  bursts.add("ctx", entry(4, { own: true }));
  bursts.add("ctx", entry(5, { type: "Gap" }));
  await sleep(40);
  assert.equal(told.length, 1);
  assert.deepEqual(
    { count: told[0].count, own: told[0].own, gaps: told[0].gaps, after: told[0].after },
    { count: 1, own: 1, gaps: 1, after: 2 },
  );
  bursts.add("ctx", entry(6));
  bursts.forget("ctx");
  await sleep(40);
  assert.equal(told.length, 1, "a forgotten context's open burst is not told");
  bursts.close();
});

Deno.test("a burst counted again leaves out the entries found to be own echoes once it was due", () => {
  const entries = [
    entry(1),
    entry(2, { own: true }),
    entry(3),
    entry(4, { type: "Gap" }),
    entry(9),
  ];
  const told: Burst = {
    contextId: "c",
    after: 0,
    through: 4,
    count: 3,
    own: 0,
    gaps: 1,
    names: new Map([["StateMutation", 3]]),
    otherNames: 0,
  };
  const next = recount(told, entries, (e) => [e.type]);
  assert.equal(next.count, 2);
  assert.equal(next.own, 1);
  assert.equal(next.gaps, 1);
  assert.deepEqual([...next.names], [["StateMutation", 2]]);
});
