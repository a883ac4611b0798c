import assert from "node:assert/strict";
import { parseAbiManifest } from "./abi_parse.ts";
import { entryMatches, viewEntry } from "./event_view.ts";
import type { Entry } from "../events/log.ts";

const MANIFEST = parseAbiManifest({
  schema_version: "wasm-abi/1",
  types: {
    Moved: {
      kind: "record",
      fields: [
        { name: "who", type: { kind: "bytes", size: 4 } },
        { name: "steps", type: { kind: "u64" } },
      ],
    },
  },
  methods: [],
  events: [
    { name: "Moved", payload: { $ref: "Moved" } },
    { name: "Counted", payload: { kind: "u64" } },
    { name: "Pinged" },
  ],
});

const bytes = (text: string) => [...new TextEncoder().encode(text)];

function mutation(events: { kind: string; data: number[]; handler?: string | null }[]): Entry {
  return {
    seq: 7,
    at: Date.UTC(2026, 11, 1),
    type: "StateMutation",
    data: { newRoot: "Root1", events: events.map((e) => ({ handler: null, ...e })) },
    bytes: 100,
  };
}

Deno.test("app events are decoded with the ABI: 64-bit integers as strings, bytes as hex, unit events bare", () => {
  const items = viewEntry(
    mutation([
      {
        kind: "Moved",
        data: bytes('{"who":[1,2,254,255],"steps":18446744073709551615}'),
        handler: "on_move",
      },
      { kind: "Counted", data: bytes("9007199254740993") },
      { kind: "Pinged", data: [] },
    ]),
    "c-7",
    MANIFEST,
  );
  assert.deepEqual(items.map(({ at: _at, ...rest }) => rest), [
    {
      cursor: "c-7",
      type: "app_event",
      name: "Moved",
      handler: "on_move",
      payload: { who: "0102feff", steps: "18446744073709551615" },
      stateRoot: "Root1",
    },
    {
      cursor: "c-7",
      type: "app_event",
      name: "Counted",
      payload: "9007199254740993",
      stateRoot: "Root1",
    },
    { cursor: "c-7", type: "app_event", name: "Pinged", stateRoot: "Root1" },
  ]);
});

Deno.test("an event the ABI does not declare, or data that is not JSON, is shown and said so", () => {
  const [odd, raw] = viewEntry(
    mutation([{ kind: "Unknown", data: bytes('{"n":1}') }, {
      kind: "Counted",
      data: [0xff, 0x00],
    }]),
    "c-7",
    MANIFEST,
  );
  assert.deepEqual(odd.payload, { n: 1 });
  assert.match(String(odd.note), /does not declare/);
  assert.equal(raw.dataHex, "ff00");
  assert.match(String(raw.note), /not JSON/);
});

Deno.test("a filter keeps the named app events of an entry; gaps always pass; sync_status only when named", () => {
  const entry = mutation([{ kind: "Moved", data: bytes('{"steps":1}') }, {
    kind: "Pinged",
    data: [],
  }]);
  assert.equal(entryMatches(entry, ["Pinged"]), true);
  assert.equal(entryMatches(entry, ["Counted"]), false);
  assert.deepEqual(viewEntry(entry, "c", MANIFEST, ["Pinged"]).map((i) => i.name), ["Pinged"]);
  const gap: Entry = { seq: 8, at: 0, type: "Gap", data: null, bytes: 0, gap: "reconnected" };
  assert.equal(entryMatches(gap, ["Pinged"]), true);
  assert.equal(viewEntry(gap, "c", null)[0].note, "reconnected");
  const sync: Entry = {
    seq: 9,
    at: 0,
    type: "SyncStatus",
    data: { syncState: "Idle", failureCount: 0 },
    bytes: 9,
  };
  assert.equal(entryMatches(sync, []), false);
  assert.equal(entryMatches(sync, ["sync_status"]), true);
  const root: Entry = {
    seq: 10,
    at: 0,
    type: "StateMutation",
    data: { newRoot: "R", events: [] },
    bytes: 9,
  };
  assert.deepEqual(viewEntry(root, "c", MANIFEST).map((i) => i.type), ["state_changed"]);
});
