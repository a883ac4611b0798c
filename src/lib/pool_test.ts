import assert from "assert";
import { mapLimit } from "./pool.ts";

Deno.test("mapLimit keeps order and never has more than the limit in flight", async () => {
  let inFlight = 0;
  let peak = 0;
  const out = await mapLimit([5, 1, 4, 2, 3, 0, 6], 3, async (n, i) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise((r) => setTimeout(r, n));
    inFlight--;
    return `${i}:${n}`;
  });
  assert.deepEqual(out, ["0:5", "1:1", "2:4", "3:2", "4:3", "5:0", "6:6"]);
  assert.equal(peak, 3);
  assert.deepEqual(await mapLimit([], 4, () => Promise.resolve(1)), []);
});

Deno.test("mapLimit rejects when one call rejects", async () => {
  await assert.rejects(
    mapLimit([1, 2, 3], 2, (n) => n === 2 ? Promise.reject(new Error("two")) : Promise.resolve(n)),
    /two/,
  );
});
