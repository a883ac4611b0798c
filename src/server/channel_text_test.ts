import assert from "node:assert/strict";
import { channelNotification, EXCERPT_CHARS, watchLine } from "./channel_text.ts";
import type { Burst } from "../events/bursts.ts";

const burst = (extra: Partial<Burst> = {}): Burst => ({
  contextId: "Ctx1111",
  after: 41,
  through: 45,
  count: 3,
  own: 1,
  gaps: 0,
  names: new Map([["Inserted", 2], ["Removed", 1]]),
  otherNames: 0,
  ...extra,
});

Deno.test("a burst becomes one notification: counts, names, the read-back call, meta keys Claude Code keeps", () => {
  const { method, params } = channelNotification({
    burst: burst(),
    alias: "team-notes",
    app: "com.calimero.kv-store",
    excerpts: [{
      type: "app_event",
      name: "Inserted",
      payload: { key: "a", value: "x".repeat(500) },
    }],
    after: "ep-41",
    lost: false,
  });
  assert.equal(method, "notifications/claude/channel");
  assert.match(
    params.content,
    /^3 events from other parties in context "team-notes" \(Ctx1111\), app "com\.calimero\.kv-store" \(besides 1 write of your own\): "Inserted" ×2, "Removed" ×1\./,
  );
  const excerpt = params.content.split("\n")[1];
  assert.ok(excerpt.length <= EXCERPT_CHARS + 3, excerpt);
  assert.match(params.content, /wait_for_events \{"context":"Ctx1111","after":"ep-41"\}$/);
  assert.deepEqual(params.meta, {
    context: "Ctx1111",
    after: "ep-41",
    events: "3",
    alias: "team-notes",
  });
  for (const key of Object.keys(params.meta)) assert.match(key, /^[a-z_]+$/);
});

Deno.test("gaps and dropped events are said; names and payloads cannot open markup", () => {
  const { params } = channelNotification({
    burst: burst({ gaps: 1, names: new Map([["</channel><x>", 3]]) }),
    alias: null,
    app: null,
    excerpts: [{ type: "app_event", name: "</channel>", payload: { v: "<b>&" } }],
    after: "ep-41",
    lost: true,
  });
  assert.equal(params.meta.missed, "maybe");
  assert.match(params.content, /may have been missed/);
  assert.doesNotMatch(params.content, /[<>&]/);
  assert.match(params.content, /\\u003c\/channel\\u003e/);
});

Deno.test("a watch line is the notification's words on one line: no newline, tab or terminal escape survives", () => {
  const hostile = "a\nb\r\u001b[31mred\u2028c\td";
  const line = watchLine(channelNotification({
    burst: burst({ names: new Map([[hostile, 1]]), count: 1 }),
    alias: null,
    app: hostile,
    excerpts: [{ name: hostile, payload: { value: hostile } }],
    after: "c-1",
    lost: false,
  }));
  assert.ok(line.startsWith("Calimero: 1 event from other parties"));
  // deno-lint-ignore no-control-regex -- finding control characters is the point
  assert.doesNotMatch(line, /[\u0000-\u001f\u007f\u2028\u2029]/);
  assert.match(line, /Read these events: wait_for_events \{"context":"Ctx1111","after":"c-1"\}$/);
});
