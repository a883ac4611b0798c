import assert from "assert";
import { createListeners } from "./listeners.ts";

Deno.test("emit calls every listener in order, waits for the async ones, and survives one that throws", async () => {
  const seen: string[] = [];
  const changes = createListeners<[number]>("a test change");
  changes.subscribe((n) => void seen.push(`a${n}`));
  changes.subscribe(() => {
    throw new Error("listener bug");
  });
  changes.subscribe(async (n) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    seen.push(`b${n}`);
  });
  const done = changes.emit(1);
  assert.deepEqual(seen, ["a1"], "the synchronous part runs before emit returns");
  await done;
  assert.deepEqual(seen, ["a1", "b1"]);
});

Deno.test("a listener that unsubscribed is not called again", async () => {
  let calls = 0;
  const changes = createListeners<[]>("a test change");
  const stop = changes.subscribe(() => void calls++);
  await changes.emit();
  stop();
  await changes.emit();
  assert.equal(calls, 1);
});
