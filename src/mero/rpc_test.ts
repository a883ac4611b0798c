import assert from "assert";
import { createMeroClient } from "./client.ts";
import { fakeFetch, jsonResponse } from "../testing/fake_fetch.ts";
import { NodeHttpError } from "./http.ts";
import { NodeRpcError } from "./rpc.ts";

Deno.test("execute posts the JSON-RPC envelope and returns the output", async () => {
  const fake = fakeFetch(() =>
    jsonResponse({ jsonrpc: "2.0", id: 1, result: { output: { value: "demo" } } })
  );
  const client = createMeroClient({ baseUrl: "http://h:1/node1", fetch: fake.fetch });
  const output = await client.rpc.execute({
    contextId: "11111111111111111111111111111111",
    method: "get_value",
    argsJson: { key: "demo" },
  });
  assert.deepEqual(output, { value: "demo" });
  const request = fake.requests[0];
  assert.equal(request.method, "POST");
  assert.equal(request.url, "http://h:1/node1/jsonrpc");
  assert.equal(request.headers.get("content-type"), "application/json");
  assert.equal(
    request.body,
    '{"jsonrpc":"2.0","id":1,"method":"execute","params":{"contextId":"11111111111111111111111111111111","method":"get_value","argsJson":{"key":"demo"}}}',
  );
});

Deno.test("ids count up, absent args become {}, absent output becomes null", async () => {
  const fake = fakeFetch(() => jsonResponse({ jsonrpc: "2.0", id: 1, result: {} }));
  const client = createMeroClient({ baseUrl: "http://h:1", fetch: fake.fetch });
  assert.equal(await client.rpc.execute({ contextId: "C", method: "m" }), null);
  assert.equal(await client.rpc.execute({ contextId: "C", method: "m" }), null);
  const bodies = fake.requests.map((r) => JSON.parse(r.body));
  assert.deepEqual(bodies.map((b) => b.id), [1, 2]);
  assert.deepEqual(bodies[0].params.argsJson, {});
});

Deno.test("outputs and arguments keep big integers exact", async () => {
  const fake = fakeFetch(() =>
    new Response('{"jsonrpc":"2.0","id":1,"result":{"output":{"n":9223372036854775807}}}')
  );
  const client = createMeroClient({ baseUrl: "http://h:1", fetch: fake.fetch });
  const output = await client.rpc.execute({
    contextId: "C",
    method: "m",
    argsJson: { n: 9223372036854775807n },
  });
  assert.deepEqual(output, { n: 9223372036854775807n });
  assert.match(fake.requests[0].body, /"argsJson":\{"n":9223372036854775807\}/);
});

Deno.test("an error member becomes a NodeRpcError with type and data", async () => {
  const cases: Array<[unknown, string, unknown]> = [
    [{ type: "ContextNotFound" }, "ContextNotFound", undefined],
    [{ type: "SerdeError", data: { message: "missing field `key`" } }, "SerdeError", {
      message: "missing field `key`",
    }],
    [
      { type: "FunctionCallError", data: "the method call returned an error: [34, 120, 34]" },
      "FunctionCallError",
      "the method call returned an error: [34, 120, 34]",
    ],
    ["weird", "UnknownError", "weird"],
  ];
  for (const [error, type, data] of cases) {
    const fake = fakeFetch(() => jsonResponse({ jsonrpc: "2.0", id: 1, error }));
    const client = createMeroClient({ baseUrl: "http://h:1", fetch: fake.fetch });
    await assert.rejects(
      client.rpc.execute({ contextId: "C", method: "get" }),
      (e) => {
        assert.ok(e instanceof NodeRpcError);
        assert.equal(e.type, type);
        assert.deepEqual(e.data, data);
        return true;
      },
    );
  }
});

Deno.test("an HTTP failure of /jsonrpc is a NodeHttpError, not an rpc error", async () => {
  const fake = fakeFetch(() => new Response(null, { status: 401 }));
  const client = createMeroClient({ baseUrl: "http://h:1", fetch: fake.fetch });
  await assert.rejects(
    client.rpc.execute({ contextId: "C", method: "get" }),
    (e) => e instanceof NodeHttpError && e.status === 401 && e.path === "/jsonrpc",
  );
});
