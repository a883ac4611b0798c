import assert from "node:assert/strict";
import type { EventsApi, StreamItem } from "../mero/mod.ts";
import { createEventHub } from "./hub.ts";

/** A node whose stream the test drives: each `open` gets a fresh connection that `push`es items and `end`s. */
function fakeNode() {
  const opened: { lastEventId: string | null }[] = [];
  const subscribed: string[][] = [];
  const unsubscribed: string[][] = [];
  let current: { push(item: StreamItem): void; end(): void } | null = null;
  let session = 0;
  const api: EventsApi = {
    open({ lastEventId, signal }) {
      opened.push({ lastEventId: lastEventId ?? null });
      const queue: StreamItem[] = [];
      let wake: (() => void) | null = null;
      let ended = false;
      const id = String(++session);
      current = {
        push(item) {
          queue.push(item);
          wake?.();
        },
        end() {
          ended = true;
          wake?.();
        },
      };
      signal.addEventListener("abort", () => current?.end());
      queue.push({ kind: "connect", id: `${id}-0`, sessionId: id, reconnect: false });
      return Promise.resolve((async function* () {
        for (;;) {
          while (queue.length) yield queue.shift()!;
          if (ended) return;
          await new Promise<void>((resolve) => wake = resolve);
          wake = null;
        }
      })());
    },
    subscribe(_session, ids) {
      subscribed.push(ids);
      return Promise.resolve(ids.filter((id) => !id.startsWith("refused")));
    },
    unsubscribe(_session, ids) {
      unsubscribed.push(ids);
      return Promise.resolve();
    },
  };
  const event = (contextId: string, n: number): StreamItem => ({
    kind: "event",
    id: `${session}-${n}`,
    event: {
      contextId,
      type: "StateMutation",
      data: { newRoot: `R${n}`, events: [{ kind: "Set", data: [] }] },
    },
    bytes: 50,
  });
  return {
    api,
    opened,
    subscribed,
    unsubscribed,
    event,
    connection: () => current!,
    session: () => session,
  };
}

const all = () => true;

Deno.test("the stream opens at the first watch, resubscribes after a drop with Last-Event-ID, and closes with the last watch", async () => {
  const node = fakeNode();
  let connects = 0;
  const hub = createEventHub({
    connect: () => (connects++, Promise.resolve(node.api)),
    backoff: { first: 1, max: 5 },
  });
  try {
    assert.equal(connects, 0, "nothing before a watch");
    const { watch, newly } = await hub.watch("C1");
    assert.equal(newly, true);
    assert.equal(watch.state, "subscribed");
    node.connection().push(node.event("C1", 1));
    node.connection().push(node.event("C9", 2)); // a context not watched: ignored
    await hub.wait(watch, 0, all, { timeoutMs: 1000, signal: new AbortController().signal });
    assert.deepEqual(watch.log.entries.map((e) => e.type), ["StateMutation"]);

    node.connection().end(); // the node dropped the stream
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(node.opened.length, 2);
    assert.equal(node.opened[1].lastEventId, "1-2");
    assert.deepEqual(node.subscribed, [["C1"], ["C1"]]);
    assert.deepEqual(watch.log.entries.map((e) => e.type), ["StateMutation", "Gap"]);

    // A jump in the event numbers of one session is a gap too.
    node.connection().push(node.event("C1", 1));
    node.connection().push(node.event("C1", 4));
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(watch.log.entries.map((e) => e.type).slice(2), [
      "StateMutation",
      "Gap",
      "StateMutation",
    ]);

    assert.equal(await hub.unwatch("C1"), true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(hub.status().connected, false, "no stream while nothing is watched");
    assert.equal(node.opened.length, 2);
    assert.deepEqual(node.unsubscribed, [["C1"]]);
    // Watching again starts a fresh session: the old one's subscriptions are not resumed.
    await hub.watch("C2");
    assert.equal(node.opened.length, 3);
    assert.equal(node.opened[2].lastEventId, null);
  } finally {
    hub.close();
  }
});

Deno.test("at most N contexts are watched, least recently used out; a refused one is not kept", async () => {
  const node = fakeNode();
  const hub = createEventHub({ connect: () => Promise.resolve(node.api), maxWatched: 2 });
  try {
    await hub.watch("A");
    await hub.watch("B");
    await hub.watch("A"); // A is now the most recently used
    const third = await hub.watch("C");
    assert.equal(third.evicted, "B");
    assert.deepEqual(hub.watched(), ["A", "C"]);
    assert.deepEqual(node.unsubscribed, [["B"]]);
    const refused = await hub.watch("refused-X");
    assert.equal(refused.watch.state, "refused");
    assert.match(String(refused.watch.problem), /not a member/);
    assert.equal(hub.get("refused-X"), undefined);
  } finally {
    hub.close();
  }
});

Deno.test("a wait ends at its timeout, on abort, or when the context stops being watched", async () => {
  const node = fakeNode();
  const hub = createEventHub({ connect: () => Promise.resolve(node.api) });
  try {
    const { watch } = await hub.watch("C1");
    let t = Date.now();
    const ticks: number[] = [];
    await hub.wait(watch, 0, all, {
      timeoutMs: 120,
      signal: new AbortController().signal,
      tickMs: 50,
      tick: (ms) => ticks.push(ms),
    });
    assert.ok(Date.now() - t >= 110);
    assert.equal(ticks.length, 2);
    const controller = new AbortController();
    t = Date.now();
    setTimeout(() => controller.abort(), 20);
    await hub.wait(watch, 0, all, { timeoutMs: 5_000, signal: controller.signal });
    assert.ok(Date.now() - t < 1_000);
    t = Date.now();
    setTimeout(() => hub.unwatch("C1"), 20);
    await hub.wait(watch, 0, all, { timeoutMs: 5_000, signal: new AbortController().signal });
    assert.ok(Date.now() - t < 1_000);
  } finally {
    hub.close();
  }
});

Deno.test("a node without an event stream answers a watch at once, with the reason", async () => {
  const api: EventsApi = {
    open: () => Promise.reject(new Error("HTTP 404 for GET /sse")),
    subscribe: () => Promise.resolve([]),
    unsubscribe: () => Promise.resolve(),
  };
  const hub = createEventHub({
    connect: () => Promise.resolve(api),
    backoff: { first: 10_000, max: 10_000 },
  });
  try {
    const started = Date.now();
    const { watch } = await hub.watch("C1");
    assert.ok(Date.now() - started < 500, "no wait for a subscription that cannot come");
    assert.equal(watch.state, "pending");
    assert.match(String(watch.problem), /404/);
  } finally {
    hub.close();
  }
});

Deno.test("letting go of the last context and watching another at once starts a fresh stream with no gap", async () => {
  const node = fakeNode();
  const hub = createEventHub({
    connect: () => Promise.resolve(node.api),
    backoff: { first: 5_000, max: 5_000 },
  });
  try {
    await hub.watch("A");
    await hub.unwatch("A");
    const started = Date.now();
    const { watch } = await hub.watch("B");
    assert.equal(watch.state, "subscribed");
    assert.ok(Date.now() - started < 1_000, "no backoff for a stream closed on purpose");
    assert.deepEqual(watch.log.entries, [], "no gap: nothing was missed");
    assert.equal(node.opened.length, 2);
  } finally {
    hub.close();
  }
});

Deno.test("a pinned context is never let go to make room nor by a plain unwatch; at most half may be pinned; an own write's echo is marked", async () => {
  const node = fakeNode();
  const hub = createEventHub({ connect: () => Promise.resolve(node.api), maxWatched: 4 });
  try {
    await hub.watch("P1");
    assert.equal(hub.pin("P1", true), true);
    assert.equal(hub.pin("NOT-WATCHED", true), false);
    await hub.watch("P2");
    assert.equal(hub.pin("P2", true), true);
    await hub.watch("C3");
    assert.equal(hub.pin("C3", true), false, "at most half of 4");
    await hub.watch("C4");
    const { evicted } = await hub.watch("C5");
    assert.equal(evicted, "C3", "the least recently used unpinned one");
    assert.equal(await hub.unwatch("P1"), false);
    assert.equal(hub.get("P1")?.contextId, "P1");
    assert.equal(await hub.unwatch("P1", { evenPinned: true }), true);
    assert.equal(hub.pinned("P1"), false);

    const done = hub.ownWrite("P2");
    node.connection().push(node.event("P2", 10));
    node.connection().push(node.event("P2", 11));
    await new Promise((resolve) => setTimeout(resolve, 20));
    done(true);
    assert.deepEqual(hub.get("P2")!.log.entries.map((e) => e.own ?? false), [true, false]);
  } finally {
    hub.close();
  }
});
