// The simulated node's event stream on the wire, as core's SSE handlers shape it (crates/server/src/sse/).

import assert from "assert";
import { call, rpc, withSim } from "./testing.ts";

/** Reads an open event stream until `count` frames have arrived; returns them raw. */
async function readFrames(response: Response, count: number): Promise<string[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (text.split("\n\n").length - 1 < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel();
  return text.split("\n\n").slice(0, count);
}

Deno.test("GET /sse opens a session: a connect frame with id <session>-0 and retry, then events as {result}", () =>
  withSim({ apps: ["kv-store"], pathPrefix: "/node1" }, async (sim) => {
    const { contextId } = sim.createContext(sim.appId("kv-store"));
    // At the origin, not under the prefix (crates/server/src/sse.rs).
    const stream = await fetch(`${new URL(sim.url).origin}/sse`);
    assert.equal(stream.headers.get("content-type"), "text/event-stream");
    const session = stream.headers.get("x-sse-session-id")!;
    assert.match(session, /^\d+$/);
    assert.equal(stream.headers.get("x-sse-reconnect"), "false");
    const subscribe = await fetch(`${new URL(sim.url).origin}/sse/subscription`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: session,
        method: "subscribe",
        params: { contextIds: [contextId] },
      }),
    });
    assert.deepEqual(await subscribe.json(), {
      result: { status: "subscribed", contexts: [contextId], groups: [] },
    });
    await rpc(sim, contextId, "set", { key: "k", value: "v" });
    const [connect, event] = await readFrames(stream, 2);
    assert.equal(
      connect,
      `event: message\nid: ${session}-0\nretry: 3000\ndata: {"type":"connect","session_id":"${session}","reconnect":false}`,
    );
    const lines = event.split("\n");
    assert.deepEqual(lines.slice(0, 2), ["event: message", `id: ${session}-1`]);
    const data = JSON.parse(lines[2].slice("data: ".length));
    assert.equal(data.result.contextId, contextId);
    assert.equal(data.result.type, "StateMutation");
    assert.deepEqual(data.result.data.events, [{
      kind: "Inserted",
      data: [...new TextEncoder().encode('{"key":"k","value":"v"}')],
      handler: null,
    }]);
  }));

Deno.test("POST /sse/subscription answers core's errors; Last-Event-ID resumes the session", () =>
  withSim({ apps: ["kv-store"] }, async (sim) => {
    const bad = await call(sim, "POST", "/sse/subscription", {
      id: "x",
      method: "subscribe",
      params: {},
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { error: "Invalid Session Id" });
    const gone = await call(sim, "POST", "/sse/subscription", {
      id: "7",
      method: "subscribe",
      params: {},
    });
    assert.equal(gone.status, 404);
    const first = await fetch(`${sim.url}/sse`);
    const session = first.headers.get("x-sse-session-id")!;
    await first.body!.cancel();
    const malformed = await call(sim, "POST", "/sse/subscription", {
      id: session,
      method: "subscribe",
      params: { contextIds: ["not-an-id"] },
    });
    assert.equal(malformed.status, 400);
    assert.equal((malformed.body as { error: { type: string } }).error.type, "ParseError");
    const again = await fetch(`${sim.url}/sse`, { headers: { "last-event-id": `${session}-4` } });
    assert.equal(again.headers.get("x-sse-session-id"), session);
    assert.equal(again.headers.get("x-sse-reconnect"), "true");
    await again.body!.cancel();
  }));

Deno.test("with embedded auth, /sse needs a valid token but no permission", () =>
  withSim({ apps: [], auth: { username: "u", password: "p" } }, async (sim) => {
    const refused = await fetch(`${sim.url}/sse`);
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    const { access_token: token } = sim.issueTokens(["context:list"]);
    const ok = await fetch(`${sim.url}/sse`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 200);
    await ok.body!.cancel();
  }));
