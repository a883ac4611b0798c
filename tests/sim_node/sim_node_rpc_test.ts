// JSON-RPC on the simulated node: HTTP 200 for every outcome, the error types, both shapes of
// FunctionCallError, exact 64-bit integers, bytes and variants, services, and the sample apps.

import assert from "assert";
import { manifestOf } from "./abi.ts";
import { defaultValue } from "./abi_check.ts";
import { DATA, dataText } from "./apps/data.ts";
import { parseLossless } from "./json.ts";
import type { SimNode } from "./mod.ts";
import { call, rpc, withSim } from "./testing.ts";

type RpcError = { type: string; data?: unknown };
const errorOf = (body: Record<string, unknown>) => body.error as RpcError;
const outputOf = (body: Record<string, unknown>) => (body.result as { output: unknown }).output;

/** Decodes `the method call returned an error: [..]` into the app's JSON error value. */
function guestValue(data: unknown): unknown {
  const m = /^the method call returned an error: \[([\d, ]*)\]$/.exec(String(data));
  assert.ok(m, `not the byte-list shape: ${data}`);
  return JSON.parse(new TextDecoder().decode(new Uint8Array(m[1].split(", ").map(Number))));
}

/** Posts a raw JSON-RPC body (exact digits) and returns the raw response text. */
async function rawRpc(sim: SimNode, contextId: string, method: string, argsText: string) {
  const body = `{"jsonrpc":"2.0","id":7,"method":"execute","params":{"contextId":"${contextId}",` +
    `"method":"${method}","argsJson":${argsText}}}`;
  const answer = await call(sim, "POST", "/jsonrpc", body, { "content-type": "application/json" });
  assert.equal(answer.status, 200);
  return answer.text;
}

Deno.test("a call answers 200 with result.output and a write changes the context's state hash", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    const { contextId } = sim.createContext(sim.appId("kv-store"));
    const hash = async () =>
      ((await call(sim, "GET", `/admin-api/contexts/${contextId}`)).body as {
        data: { contextStateHash: string };
      }).data.contextStateHash;
    const before = await hash();
    const set = await rpc(sim, contextId, "set", { key: "k", value: "v" });
    assert.deepEqual(set, { jsonrpc: "2.0", id: 1, result: { output: null } });
    assert.notEqual(await hash(), before);
    assert.equal(outputOf(await rpc(sim, contextId, "get", { key: "k" })), "v");
    assert.deepEqual(outputOf(await rpc(sim, contextId, "entries", {})), { k: "v" });
    assert.equal(outputOf(await rpc(sim, contextId, "len", {})), 1);
    assert.equal(outputOf(await rpc(sim, contextId, "remove", { key: "gone" })), null);
    assert.deepEqual(sim.contextState(contextId)?.items, new Map([["k", "v"]]));
  });
});

Deno.test("guest failures arrive as FunctionCallError in both shapes", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    const { contextId } = sim.createContext(sim.appId("kv-store"));
    const cases: [string, Record<string, unknown>, (data: unknown) => void][] = [
      ["get", { key: "zz" }, (d) => assert.equal(guestValue(d), "Key not found: zz")],
      [
        "get_result",
        { key: "zz" },
        (d) => assert.deepEqual(guestValue(d), { kind: "NotFound", data: "zz" }),
      ],
      [
        "get_unchecked",
        { key: "zz" },
        (d) => assert.match(String(d), /^guest panicked: key not found at \S+:\d+:\d+$/),
      ],
      ["get", {}, (d) => assert.match(String(d), /^guest panicked: .*missing field `key`/)],
      [
        "set",
        { key: 1, value: "v" },
        (d) => assert.match(String(d), /invalid type: integer `1`, expected a string/),
      ],
      [
        "nope",
        {},
        (d) => assert.match(String(d), /^guest panicked: method "nope" is not exported/),
      ],
    ];
    for (const [method, args, check] of cases) {
      const error = errorOf(await rpc(sim, contextId, method, args));
      assert.equal(error.type, "FunctionCallError", method);
      check(error.data);
    }
    assert.equal(outputOf(await rpc(sim, contextId, "len", {})), 0, "failed calls wrote nothing");
  });
});

Deno.test("JSON-RPC errors come with HTTP 200 as { type, data? } and no code or message", async () => {
  await withSim({ apps: ["kv-store"] }, async (sim) => {
    const app = sim.appId("kv-store");
    const { contextId } = sim.createContext(app);
    const unknown = sim.appId("bignum");
    const cases: [string, unknown, string][] = [
      [unknown, {}, "FunctionCallError"], // core execute.rs: no owned identity in an unknown context
      ["not-an-id", {}, "ParseError"],
      [contextId, undefined, "ParseError"],
      [contextId, [1, 2], "SerdeError"],
    ];
    for (const [ctx, args, type] of cases) {
      const error = errorOf(await rpc(sim, ctx, "len", args));
      assert.equal(error.type, type, `${ctx} ${JSON.stringify(args)}`);
      assert.deepEqual(Object.keys(error).filter((k) => k !== "type" && k !== "data"), []);
    }
    assert.equal(
      typeof (errorOf(await rpc(sim, contextId, "len", [1])).data as { message: string }).message,
      "string",
    );
    sim.forceRpcError({ type: "Uninitialized" }, { times: 1 });
    assert.deepEqual(errorOf(await rpc(sim, contextId, "len", {})), { type: "Uninitialized" });
    assert.equal(outputOf(await rpc(sim, contextId, "len", {})), 0, "times: 1 clears the override");
    sim.forceRpcError({ type: "GroupKeyPending" }, { method: "set" });
    assert.equal(
      errorOf(await rpc(sim, contextId, "set", { key: "a", value: "b" })).type,
      "GroupKeyPending",
    );
    assert.equal(outputOf(await rpc(sim, contextId, "len", {})), 0, "other methods unaffected");
    sim.forceRpcError(null);
    sim.uninstall(app);
    assert.equal(errorOf(await rpc(sim, contextId, "len", {})).type, "ApplicationNotInstalled");
  });
});

Deno.test("integers above 2^53 are read and written with their exact digits", async () => {
  await withSim({ apps: ["bignum"] }, async (sim) => {
    const { contextId } = sim.createContext(sim.appId("bignum"));
    const cases: [string, string, string][] = [
      ["echo_u64", '{"x":18446744073709551615}', "18446744073709551615"],
      ["echo_u64", '{"x":9007199254740993}', "9007199254740993"],
      ["echo_i64", '{"x":-9223372036854775808}', "-9223372036854775808"],
      ["max_u64", "{}", "18446744073709551615"],
      ["add_u64", '{"a":9007199254740993,"b":1}', "9007199254740994"],
      ["sum_u64", '{"xs":[9223372036854775808,9223372036854775807]}', "18446744073709551615"],
      ["echo_pair", '{"t":["a",12345678901234567890]}', '["a",12345678901234567890]'],
    ];
    for (const [method, args, output] of cases) {
      const text = await rawRpc(sim, contextId, method, args);
      assert.equal(text, `{"jsonrpc":"2.0","id":7,"result":{"output":${output}}}`, method);
    }
    const overflow = parseLossless(
      await rawRpc(sim, contextId, "add_u64", '{"a":18446744073709551615,"b":1}'),
    );
    assert.deepEqual(guestValue(errorOf(overflow as Record<string, unknown>).data), {
      kind: "Overflow",
      data: "18446744073709551616",
    });
    const asString = parseLossless(await rawRpc(sim, contextId, "echo_u64", '{"x":"5"}'));
    assert.match(
      String(errorOf(asString as Record<string, unknown>).data),
      /invalid type: string "5", expected u64/,
    );
    const negative = parseLossless(await rawRpc(sim, contextId, "echo_u64", '{"x":-1}'));
    assert.match(
      String(errorOf(negative as Record<string, unknown>).data),
      /invalid value: integer `-1`, expected u64/,
    );
  });
});

Deno.test("bytes, variants and nullable record fields round-trip", async () => {
  await withSim({ apps: ["bignum"] }, async (sim) => {
    const { contextId } = sim.createContext(sim.appId("bignum"));
    const out = async (method: string, args: Record<string, unknown>) => {
      const body = await rpc(sim, contextId, method, args);
      assert.equal(body.error, undefined, `${method}: ${JSON.stringify(body.error)}`);
      return outputOf(body);
    };
    assert.deepEqual(await out("echo_bytes", { b: [0, 1, 255] }), [0, 1, 255]);
    assert.equal((await out("sha256", { b: [1, 2, 3] }) as number[]).length, 32);
    assert.deepEqual(await out("echo_shape", { s: "Empty" }), "Empty");
    assert.deepEqual(await out("echo_shape", { s: { Circle: { radius: 3 } } }), {
      Circle: { radius: 3 },
    });
    assert.deepEqual(await out("echo_color", { c: "Green" }), "Green");
    const account = { owner: "o", balance: 18446744073709551615n, delta: -5, tags: [] };
    assert.deepEqual(await out("echo_account", { a: account }), { nickname: null, ...account });
    await out("put_account", { a: { ...account, nickname: "n" } });
    assert.equal(
      (await out("get_account", { owner: "o" }) as Record<string, unknown>).nickname,
      "n",
    );
    assert.equal(await out("get_account", { owner: "missing" }), null);
    const failures: [string, Record<string, unknown>, RegExp][] = [
      ["echo_hash", { h: [1, 2] }, /invalid length 2, expected an array of length 32/],
      ["echo_bytes", { b: "00ff" }, /invalid type: string "00ff"/],
      ["echo_bytes", { b: [256] }, /expected u8/],
      ["echo_color", { c: "Purple" }, /unknown variant `Purple`/],
      ["echo_shape", { s: "Circle" }, /invalid type: unit variant/],
      ["echo_account", { a: { owner: "o", delta: 0, tags: [] } }, /missing field `balance`/],
    ];
    for (const [method, args, pattern] of failures) {
      assert.match(String(errorOf(await rpc(sim, contextId, method, args)).data), pattern, method);
    }
  });
});

Deno.test("an init that rejects its params fails context creation with the app's message", async () => {
  await withSim({ apps: ["bignum"] }, async (sim) => {
    const applicationId = sim.appId("bignum");
    const groupId = sim.createNamespace(applicationId);
    const params = (value: unknown) => [...new TextEncoder().encode(JSON.stringify(value))];
    const rejected = await call(sim, "POST", "/admin-api/contexts", {
      applicationId,
      groupId,
      initializationParams: params({ label: "" }),
    });
    assert.deepEqual([rejected.status, rejected.body], [400, {
      error: "label must not be empty when given",
    }]);
    const ok = await call(sim, "POST", "/admin-api/contexts", {
      applicationId,
      groupId,
      initializationParams: params({ label: "x" }),
    });
    assert.equal(ok.status, 200);
  });
});

Deno.test("multi-service contexts run their own service, and the app needs a serviceName", async () => {
  await withSim({ apps: ["mero-drive-docs", "mero-issue-tracker"] }, async (sim) => {
    const drive = sim.appId("mero-drive-docs");
    assert.throws(() => sim.createContext(drive), /several services \(registry, docs\)/);
    assert.throws(() => sim.createContext(drive, { serviceName: "x" }), /Unknown service "x"/);
    const docs = sim.createContext(drive, { serviceName: "docs" }).contextId;
    const registry = sim.createContext(drive, { serviceName: "registry" }).contextId;
    await rpc(sim, docs, "write", { doc_id: "d", text: "one two three" });
    assert.equal(outputOf(await rpc(sim, docs, "word_count", { doc_id: "d" })), 3);
    assert.match(
      String(errorOf(await rpc(sim, registry, "word_count", { doc_id: "d" })).data),
      /not exported/,
    );
    const ctx = (await call(sim, "GET", `/admin-api/contexts/${docs}`)).body as {
      data: { serviceName: string };
    };
    assert.equal(ctx.data.serviceName, "docs");
    const tracker = sim.createContext(sim.appId("mero-issue-tracker")).contextId;
    const plain = (await call(sim, "GET", `/admin-api/contexts/${tracker}`)).body as {
      data: Record<string, unknown>;
    };
    assert.equal("serviceName" in plain.data, false, "a sole service may be left unnamed");
  });
});

Deno.test("the issue tracker follows the rules of its guide", async () => {
  await withSim({ apps: ["mero-issue-tracker"] }, async (sim) => {
    const app = sim.appId("mero-issue-tracker");
    const ctx = sim.createContext(app).contextId;
    const issue = {
      title: "Flaky CI",
      summary: "s",
      impact: "i",
      repro: "r",
      resolution_criteria: "c",
      priority: "high",
      labels: ["ci"],
    };
    const id = outputOf(await rpc(sim, ctx, "create_issue", issue)) as string;
    assert.match(id, /^issue-\d+-[0-9a-f]{8}$/);
    await rpc(sim, ctx, "set_status", { issue_id: id, status: "In progress" });
    const bad = errorOf(await rpc(sim, ctx, "set_status", { issue_id: id, status: "in progress" }));
    assert.match(String(guestValue(bad.data)), /Invalid status "in progress"/);
    const listed = outputOf(
      await rpc(sim, ctx, "list_issues", { status: null, assignee: null, label: "ci" }),
    );
    assert.equal((listed as unknown[]).length, 1);
    const counts = outputOf(await rpc(sim, ctx, "get_status_counts", {})) as {
      status: string;
      count: number;
    }[];
    assert.deepEqual(counts.map((c) => c.count), [0, 1, 0, 0]);
    const comment = outputOf(await rpc(sim, ctx, "add_comment", { issue_id: id, body: "seen" }));
    const detail = outputOf(await rpc(sim, ctx, "get_issue", { issue_id: id })) as {
      comments: { id: string }[];
    };
    assert.deepEqual(detail.comments.map((c) => c.id), [comment]);
  });
});

Deno.test("every abi-coverage method answers its default arguments without an error", async () => {
  await withSim({ apps: ["abi-coverage"] }, async (sim) => {
    const abi = manifestOf(dataText(DATA.coverageAbi))!;
    const ctx = sim.createContext(sim.appId("abi-coverage")).contextId;
    for (const method of abi.methods!.filter((m) => m.name !== "init")) {
      const args = Object.fromEntries(
        (method.params ?? []).map((p) => [p.name, defaultValue(abi, p.type)]),
      );
      const body = await rpc(sim, ctx, method.name, args);
      assert.equal(body.error, undefined, `${method.name}: ${JSON.stringify(body.error)}`);
    }
    assert.equal(outputOf(await rpc(sim, ctx, "echo_string", { value: "hi" })), "hi");
    assert.equal(outputOf(await rpc(sim, ctx, "constant", {})), 42);
    const failed = errorOf(await rpc(sim, ctx, "may_fail", { flag: true }));
    assert.deepEqual(guestValue(failed.data), { kind: "Failed", data: "flag was set" });
  });
});
