import assert from "node:assert/strict";
import { createEventsApi, type EventsApi, type HttpCore, type StreamItem } from "../mero/mod.ts";
import { captureStderr } from "../testing/unit.ts";
import { createEventStream } from "./stream.ts";

/** A node whose every stream sends `connect` and ends at once (accepts, then drops). */
function flappingNode() {
  let opens = 0;
  const api: EventsApi = {
    open() {
      const id = String(++opens);
      return Promise.resolve((async function* (): AsyncGenerator<StreamItem> {
        yield { kind: "connect", id: `${id}-0`, sessionId: id, reconnect: false };
      })());
    },
    subscribe: () => Promise.resolve([]),
    unsubscribe: () => Promise.resolve(),
  };
  return { api, opens: () => opens };
}

Deno.test("a node that drops every stream at once is retried ever slower, with one gap per drop and one warning", async () => {
  const node = flappingNode();
  const gaps: string[] = [];
  let wanted = true;
  const stream = createEventStream({
    connect: () => Promise.resolve(node.api),
    wanted: () => wanted,
    onConnect: () => {},
    onEvent: () => {},
    onGap: (why) => gaps.push(why),
    onProblem: () => {},
    backoff: { first: 20, max: 10_000 },
  });
  const stderr = await captureStderr(async () => {
    stream.start();
    await new Promise((resolve) => setTimeout(resolve, 700));
    wanted = false;
    stream.close();
  });
  // Backoff 20, 40, 80, 160, 320 ms (±20 %): about six opens in 700 ms. Without the stable-connection rule the
  // backoff started over at every connect: one open every ~20 ms, more than thirty.
  assert.ok(node.opens() >= 3 && node.opens() <= 8, `${node.opens()} opens in 700 ms`);
  assert.equal(gaps.length, node.opens(), "each drop of a connected stream is a gap");
  const warnings = stderr.split("\n").filter((line) => line.includes("ended the event stream"));
  assert.equal(warnings.length, 1, stderr);
});

/** The real SSE reader over a response that sends `first`, then nothing at all. */
function silentApi(first: string) {
  let opens = 0;
  const http = {
    baseUrl: "http://node",
    stream: ({ signal }: { signal: AbortSignal }) => {
      opens++;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          if (first) controller.enqueue(new TextEncoder().encode(first));
          signal.addEventListener("abort", () => controller.error(new Error("aborted")));
        },
      });
      return Promise.resolve(new Response(body));
    },
  } as unknown as HttpCore;
  return { api: createEventsApi(http), opens: () => opens };
}

for (
  const [what, first] of [
    ["headers, then silence", ""],
    ["the connect frame, then silence", 'id: 7-0\ndata: {"type":"connect","session_id":"7"}\n\n'],
  ] as const
) {
  Deno.test(`a stream that goes quiet (${what}) is reopened after the idle time, and a connected one leaves a gap`, async () => {
    const node = silentApi(first);
    const gaps: string[] = [];
    const problems: string[] = [];
    let wanted = true;
    const stream = createEventStream({
      connect: () => Promise.resolve(node.api),
      wanted: () => wanted,
      onConnect: () => {},
      onEvent: () => {},
      onGap: (why) => gaps.push(why),
      onProblem: (text) => problems.push(text),
      backoff: { first: 10, max: 10 },
      idleMs: 100,
    });
    await captureStderr(async () => {
      stream.start();
      await new Promise((resolve) => setTimeout(resolve, 380));
      wanted = false;
      stream.close();
    });
    assert.ok(node.opens() >= 2, `reopened: ${node.opens()} opens`);
    assert.match(problems[0], /sent nothing for 0 s|sent nothing for/);
    assert.equal(gaps.length > 0, first !== "", `gaps: ${gaps.join(" | ")}`);
  });
}
