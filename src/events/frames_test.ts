import assert from "assert";
import { createFrameFolder, type Frame } from "./frames.ts";

const mutation = (root: string, events: unknown[] = []): Frame => ({
  contextId: "ctx",
  type: "StateMutation",
  data: { newRoot: root, events },
  bytes: 10,
});
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("a peer's write told in two frames with one root is one event: the one carrying the app's events", async () => {
  const out: Frame[] = [];
  const folder = createFrameFolder((f) => out.push(f), 50);
  folder.push(mutation("R1"));
  folder.push(mutation("R1", [{ kind: "Inserted" }]));
  await wait(80);
  assert.deepEqual(out.map((f) => (f.data as { events: unknown[] }).events.length), [1]);
  // The other order: the empty twin after the full one is a repeat.
  folder.push(mutation("R2", [{ kind: "Updated" }]));
  folder.push(mutation("R2"));
  await wait(80);
  assert.equal(out.length, 2);
});

Deno.test("a state change without events is told after the wait, and order is kept", async () => {
  const out: Frame[] = [];
  const folder = createFrameFolder((f) => out.push(f), 50);
  folder.push(mutation("R1"));
  folder.push({ contextId: "ctx", type: "SyncStatus", data: {}, bytes: 2 });
  assert.deepEqual(out.map((f) => f.type), ["StateMutation", "SyncStatus"], "held until then");
  folder.push(mutation("R2"));
  assert.equal(out.length, 2);
  await wait(80);
  assert.equal(out.length, 3, "told once the twin did not come");
  folder.push(mutation("R3"));
  folder.push(mutation("R4", [{ kind: "Inserted" }]));
  assert.deepEqual(
    out.slice(3).map((f) => (f.data as { newRoot: string }).newRoot),
    ["R3", "R4"],
    "another root: both, in order",
  );
  folder.push(mutation("R5"));
  folder.flush();
  assert.equal(out.length, 6);
});
