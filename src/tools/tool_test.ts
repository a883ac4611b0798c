import assert from "assert";
import { callOptions, type ToolCall, whileWaiting } from "./tool.ts";

const ctx = (progress: ToolCall["progress"] = () => {}): ToolCall => ({
  signal: new AbortController().signal,
  progress,
  confirm: () => Promise.resolve(null),
});

Deno.test("callOptions carries the signal, the traceparent only when present, and a timeout", () => {
  const plain = ctx();
  assert.deepEqual(Object.keys(callOptions(plain)), ["signal"]);
  const traced = {
    ...plain,
    traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  };
  const options = callOptions(traced, 65_000);
  assert.equal(options.signal, plain.signal);
  assert.equal(options.traceparent, traced.traceparent);
  assert.equal(options.timeoutMs, 65_000);
});

Deno.test("whileWaiting reports progress until the work settles, then returns its value", async () => {
  const seen: [number, string | undefined][] = [];
  let finish!: (value: string) => void;
  const work = new Promise<string>((resolve) => finish = resolve);
  const result = whileWaiting(
    ctx((progress, message) => {
      seen.push([progress, message]);
      if (seen.length === 2) finish("done");
    }),
    "Installing",
    work,
    1,
  );
  assert.equal(await result, "done");
  assert.equal(seen.length, 2);
  assert.match(seen[0][1] ?? "", /^Installing: still waiting for the node/);
  assert.ok(seen[1][0] >= seen[0][0], "progress never goes back");
});

Deno.test("whileWaiting passes a failure through", async () => {
  await assert.rejects(
    whileWaiting(ctx(), "Joining", Promise.reject(new Error("refused")), 1),
    /refused/,
  );
});
