import assert from "assert";
import { createThrottle } from "./throttle.ts";

const never = new AbortController().signal;

Deno.test("at most maxRunning calls run at once; the others wait their turn in order", async () => {
  const throttle = createThrottle({ maxRunning: 2 });
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const call = (n: number) => async () => {
    running++;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 10));
    running--;
    order.push(n);
    return n;
  };
  const results = await Promise.all([1, 2, 3, 4, 5].map((n) => throttle.run(call(n), never)));
  assert.deepEqual(results, [1, 2, 3, 4, 5]);
  assert.equal(most, 2);
  assert.deepEqual(order.slice(2), [3, 4, 5], "waiting calls start in arrival order");
});

Deno.test("a call beyond maxWaiting is refused at once, and a cancelled waiting call leaves the queue", async () => {
  const throttle = createThrottle({ maxRunning: 1, maxWaiting: 1 });
  const release = Promise.withResolvers<void>();
  const first = throttle.run(() => release.promise.then(() => "first"), never);
  const abort = new AbortController();
  const second = throttle.run(() => Promise.resolve("second"), abort.signal);
  const third = await throttle.run(() => Promise.resolve("third"), never);
  assert.match(
    (third as { refused: string }).refused,
    /Too many app calls at once: 1 are running and 1/,
  );
  abort.abort();
  assert.match(((await second) as { refused: string }).refused, /cancelled/);
  assert.deepEqual(throttle.status(), { running: 1, waiting: 0 });
  release.resolve();
  assert.equal(await first, "first");
});

Deno.test("no call starts while more than the high water of answers is still being written out", async () => {
  let pending = 10_000;
  const throttle = createThrottle({ highWaterBytes: 1_000, pendingOutput: () => pending });
  let started = false;
  const call = throttle.run(() => {
    started = true;
    return Promise.resolve("ok");
  }, never);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(started, false);
  pending = 500;
  throttle.drained();
  assert.equal(await call, "ok");
});
