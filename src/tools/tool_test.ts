import assert from "assert";
import { callOptions, defineTool, READ_ONLY, type ToolCall, whileWaiting } from "./tool.ts";
import { z } from "zod";
import { resultText, type ToolResult } from "../answer/result.ts";
import { captureStderr } from "../testing/unit.ts";

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

Deno.test("a tool's refusal reaches the agent as written; a bug is logged with its stack and told as ours", async () => {
  const tool = (run: () => Promise<never>) =>
    defineTool({
      name: "probe",
      title: "Probe",
      description: "Fails.",
      group: "core",
      input: z.object({}),
      annotations: READ_ONLY,
      run,
    });
  const call = {
    signal: new AbortController().signal,
    progress: () => {},
    confirm: () => Promise.resolve(null),
  };
  let stderr = await captureStderr(async () => {
    const refused = await tool(() => Promise.reject(new Error("Pass a context."))).call({}, call);
    assert.equal(resultText(refused as ToolResult), "Error: Pass a context.");
  });
  assert.equal(stderr, "", "a refusal is not logged");
  stderr = await captureStderr(async () => {
    const bug = await tool(() => Promise.reject(new TypeError("x is undefined"))).call({}, call);
    assert.match(
      resultText(bug as ToolResult),
      /failed unexpectedly running probe \(TypeError: x is undefined\)\. This is a bug in mero-mcp, not a problem with the call/,
    );
  });
  assert.match(stderr, /probe failed unexpectedly: TypeError: x is undefined\\x0a\s+at Object.run/);
});

Deno.test("a context is `context` everywhere: contextId is understood and said, and a schema error lists what the tool takes", async () => {
  const seen: Record<string, unknown>[] = [];
  const tool = defineTool({
    name: "probe_alias",
    title: "Probe",
    description: "Takes an alias and a context.",
    group: "core",
    input: z.object({ alias: z.string(), context: z.string() }),
    annotations: READ_ONLY,
    run: (args) => (seen.push(args), Promise.resolve({ content: [{ type: "text", text: "ok" }] })),
  });
  const call = {
    signal: new AbortController().signal,
    progress: () => {},
    confirm: () => Promise.resolve(null),
  };
  const understood = await tool.call({ alias: "a", contextId: "C1" }, call) as ToolResult;
  assert.deepEqual(seen, [{ alias: "a", context: "C1" }]);
  assert.match(
    resultText(understood),
    /this tool calls it `context`; `contextId` was taken as that/,
  );
  const wrong = await tool.call({ alias: "a", ctx: "C1" }, call) as ToolResult;
  assert.equal(
    resultText(wrong),
    'Error: Invalid arguments for probe_alias: context is missing; it takes no "ctx" (its arguments are alias, context).',
  );
});
