import assert from "node:assert/strict";
import { createSseParser, type SseItem } from "./sse_parse.ts";
import { interpret } from "./sse.ts";

const frames = (items: SseItem[]) => items.map((i) => "frame" in i ? i.frame : i);

Deno.test("frames split across chunks and line endings (LF, CRLF, CR) parse the same", () => {
  const text =
    'event: message\nid: 5-0\nretry: 3000\ndata: {"type":"connect",\ndata: "x":1}\n\n: keep-alive\n\n';
  const whole = frames(createSseParser(1024).push(text));
  assert.deepEqual(whole, [{
    id: "5-0",
    event: "message",
    data: '{"type":"connect",\n"x":1}',
    retry: 3000,
  }]);
  for (const eol of ["\r\n", "\r"]) {
    const parser = createSseParser(1024);
    const out: SseItem[] = [];
    const crlf = text.replaceAll("\n", eol);
    for (let i = 0; i < crlf.length; i += 3) out.push(...parser.push(crlf.slice(i, i + 3)));
    assert.deepEqual(frames(out), whole, JSON.stringify(eol));
  }
});

Deno.test("the id carries over; comments and frames without data dispatch nothing", () => {
  const parser = createSseParser(1024);
  const out = frames(parser.push("id: 1-1\ndata: a\n\n:\n\nevent: x\n\ndata: b\n\n"));
  assert.deepEqual(out, [
    { id: "1-1", event: "message", data: "a", retry: null },
    { id: "1-1", event: "message", data: "b", retry: null },
  ]);
});

Deno.test("a frame larger than the cap is dropped and reported, including one long line; the next one parses", () => {
  const parser = createSseParser(100);
  const big = `data: ${"x".repeat(60)}\ndata: ${"y".repeat(60)}\n\n`;
  assert.deepEqual(frames(parser.push(big)), [{ oversized: 122 }]);
  const line = parser.push(`data: ${"z".repeat(250)}`);
  assert.deepEqual(line, []);
  const rest = frames(parser.push(`${"z".repeat(50)}data: fake\n\ndata: ok\n\n`));
  assert.equal(rest.length, 2);
  assert.ok("oversized" in rest[0]);
  assert.deepEqual(rest[1], { id: null, event: "message", data: "ok", retry: null });
});

Deno.test("frames mean what core's handlers send: connect, an event, close; anything else is dropped", () => {
  const item = (data: string) =>
    interpret({ frame: { id: "9-1", event: "message", data, retry: null } });
  assert.deepEqual(item('{"type":"connect","session_id":"9","reconnect":true}'), {
    kind: "connect",
    id: "9-1",
    sessionId: "9",
    reconnect: true,
  });
  const event = item('{"result":{"contextId":"C","type":"StateMutation","data":{}}}');
  assert.equal(event.kind, "event");
  assert.equal(item('{"type":"close","reason":"bye"}').kind, "close");
  assert.equal(item("not json").kind, "dropped");
  assert.equal(item('{"error":"x"}').kind, "dropped");
  assert.equal(interpret({ oversized: 5 }).kind, "dropped");
});
