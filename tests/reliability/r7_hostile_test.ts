// R7: hostile input (research/hostile-input.md). Each test sends one attack that got through before and asserts
// what must hold instead; each is bounded in time and stops by itself.

import assert from "assert";
import { callTool, initialize, resultText, startServer, suiteEnv } from "./driver.ts";
import { gzipBomb, healthy, startHostileNode } from "./hostile_node.ts";

Deno.test("R7 #1: a 10 KB line nested 5,000 deep with a 16-digit number is answered; the server lives on", async () => {
  const { env, cleanup } = await suiteEnv({
    CALIMERO_MCP_PROBE_PORTS: "1",
    CALIMERO_NODE_HOME: "/nonexistent",
  });
  const server = startServer({ env });
  try {
    await initialize(server);
    const depth = 5_000;
    const id = server.nextId();
    await server.sendLine(
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"list_nodes","arguments":` +
        `{"n":1234567890123456,"z":${"[".repeat(depth)}${"]".repeat(depth)}}}}`,
    );
    const answer = await server.response(id);
    assert.match(JSON.stringify(answer.error ?? answer.result), /nested too deeply|Invalid|-3260/);
    const ping = await server.request("ping", {});
    assert.deepEqual(ping.result, {}, "still answering");
    assert.equal(server.exitCode(), null);
  } finally {
    await server.kill();
    await cleanup();
  }
});

Deno.test("R7 #3: a gzip-encoded answer is capped by its inflated size (a 250 KB bomb of 256 MiB is refused)", async () => {
  const node = startHostileNode();
  const bomb = await gzipBomb('{"data":{"apps":[],"pad":"', 256 << 20, '"}}');
  node.answer((_req, url) =>
    healthy(url) ??
      new Response(bomb as Uint8Array<ArrayBuffer>, {
        headers: {
          "content-type": "application/json",
          "content-encoding": "gzip",
          "content-length": String(bomb.length),
        },
      })
  );
  const { env, cleanup } = await suiteEnv({ CALIMERO_NODE_URL: node.url });
  const server = startServer({ env });
  try {
    await initialize(server);
    const before = server.rssKiB();
    const result = await callTool(server, "list_applications", {}, 30_000);
    assert.equal(result.isError, true);
    assert.match(resultText(result), /16 MiB|larger than/);
    const after = server.rssKiB();
    if (before !== null && after !== null) {
      assert.ok(after - before < 200 * 1024, `RSS grew by ${after - before} KiB`);
    }
  } finally {
    await server.kill();
    await node.close();
    await cleanup();
  }
});
