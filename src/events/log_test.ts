import assert from "node:assert/strict";
import {
  append,
  createCursors,
  createLog,
  type Entry,
  MAX_BYTES_PER_CONTEXT,
  MAX_EVENT_BYTES,
  MAX_EVENTS_PER_CONTEXT,
  read,
  syncTrouble,
} from "./log.ts";

const entry = (seq: number, bytes = 10): Entry => ({
  seq,
  at: 0,
  type: "StateMutation",
  data: { seq },
  bytes,
});
const all = () => true;

Deno.test("the log keeps the newest events within the count bound and says when a cursor's events were dropped", () => {
  const log = createLog(0);
  for (let seq = 1; seq <= MAX_EVENTS_PER_CONTEXT + 10; seq++) append(log, entry(seq));
  assert.equal(log.entries.length, MAX_EVENTS_PER_CONTEXT);
  assert.equal(log.entries[0].seq, 11);
  const found = read(log, 0, all, 5);
  assert.deepEqual(found.entries.map((e) => e.seq), [11, 12, 13, 14, 15]);
  assert.equal(found.lost, true);
  assert.equal(found.more, true);
  assert.equal(read(log, 20, all, 1000).lost, false);
});

Deno.test("the log stays within its byte bound; one oversized event is kept as a marker without data", () => {
  const log = createLog(0);
  append(log, entry(1, MAX_EVENT_BYTES + 1));
  assert.equal(log.entries[0].oversized, true);
  assert.equal(log.entries[0].data, null);
  assert.equal(log.bytes, 0);
  for (let seq = 2; seq < 100; seq++) append(log, entry(seq, MAX_EVENT_BYTES));
  assert.ok(log.bytes <= MAX_BYTES_PER_CONTEXT);
  assert.ok(log.entries.length <= MAX_BYTES_PER_CONTEXT / MAX_EVENT_BYTES + 1);
});

Deno.test("cursors name this process: another process's cursor is foreign, garbage is invalid", () => {
  const mine = createCursors("0123abcd");
  const other = createCursors("ffffffff");
  assert.equal(mine.parse(mine.format(42)), 42);
  assert.equal(mine.parse(other.format(42)), "foreign");
  assert.equal(mine.parse("42"), "invalid");
  assert.equal(mine.parse("0123abcd-" + "9".repeat(30)), "invalid");
});

Deno.test("a context that keeps failing to sync is told from its newest SyncStatus, not from chatter", () => {
  const log = createLog(0);
  const sync = (seq: number, failureCount: number, lastError?: string) =>
    append(log, {
      seq,
      at: 0,
      type: "SyncStatus",
      data: { syncState: "idle", failureCount, ...(lastError ? { lastError } : {}) },
      bytes: 10,
    });
  sync(1, 1);
  assert.equal(syncTrouble(log), null, "one failure is chatter");
  sync(2, 4, "DAG sync");
  assert.deepEqual(syncTrouble(log), { failures: 4, lastError: "DAG sync" });
  sync(3, 0);
  assert.equal(syncTrouble(log), null, "a success clears it");
});
