import assert from "assert";
import { isInputRequiredResult, type ServerContext } from "@modelcontextprotocol/server";
import { clientCanAsk, createConfirmer } from "./confirm.ts";

/** The parts of a handler's context the confirmer reads. */
function ctx(state?: unknown, responses?: Record<string, unknown>): ServerContext {
  return {
    mcpReq: { requestState: () => state, inputResponses: responses, envelope: undefined },
  } as unknown as ServerContext;
}

const accepted = { confirm: { action: "accept", content: { confirm: true } } };
const ask = {
  question: "Delete context A?",
  name: "delete_context",
  canAsk: true,
  mode: "ask" as const,
};

Deno.test("an answer counts only for the call it was asked for: replayed beside another target, it is asked again", async () => {
  const confirmer = createConfirmer(new Uint8Array(32).fill(7));
  const first = await confirmer.decide({ ...ask, args: { context: "A" }, ctx: ctx() });
  assert.ok(!first.proceed && isInputRequiredResult(first.answer), "the first round asks");
  const state = (first.answer as { requestState: string }).requestState;
  const payload = await confirmer.verify(state, ctx());

  const replayed = await confirmer.decide({
    ...ask,
    args: { context: "B" },
    ctx: ctx(payload, accepted),
  });
  assert.ok(
    !replayed.proceed && isInputRequiredResult(replayed.answer),
    "B is asked about, not run",
  );

  const same = await confirmer.decide({
    ...ask,
    args: { context: "A" },
    ctx: ctx(payload, accepted),
  });
  assert.deepEqual(same, { proceed: true });

  // A state sealed by another process, or changed by the client, is refused by the integrity check.
  await assert.rejects(createConfirmer().verify(state, ctx()));
  await assert.rejects(confirmer.verify(`${state.slice(0, -3)}AAA`, ctx()));
});

Deno.test("without a way to ask: `ask` proceeds, `require` refuses with what to do", async () => {
  const confirmer = createConfirmer();
  const call = { ...ask, args: { context: "A" }, ctx: ctx(), canAsk: false };
  assert.deepEqual(await confirmer.decide(call), { proceed: true });
  const refused = await confirmer.decide({ ...call, mode: "require" });
  assert.ok(!refused.proceed);
  assert.match(JSON.stringify(refused.answer), /cannot ask for it/);
});

Deno.test("a client can ask when it declares form elicitation, in either era", () => {
  const modern = (capabilities: unknown) =>
    ({
      mcpReq: { envelope: { "io.modelcontextprotocol/clientCapabilities": capabilities } },
    }) as unknown as ServerContext;
  assert.equal(clientCanAsk(ctx(), { elicitation: {} }), true, "2025: an empty capability is form");
  assert.equal(clientCanAsk(ctx(), { elicitation: { url: {} } }), false, "URL mode only");
  assert.equal(clientCanAsk(ctx(), {}), false);
  assert.equal(clientCanAsk(ctx(), undefined), false);
  assert.equal(clientCanAsk(modern({ elicitation: { form: {} } }), undefined), true);
  assert.equal(
    clientCanAsk(modern({}), { elicitation: {} }),
    false,
    "the request's own envelope rules",
  );
});

Deno.test("the question shows an app's hidden characters to the person as escapes", async () => {
  const asked = await createConfirmer().decide({
    ...ask,
    question: 'Run "clear" of com.evil\u202Egnp.exe?',
    args: {},
    ctx: ctx(),
  });
  const message = JSON.stringify(asked);
  assert.ok(!message.includes("\u202E"), "no raw override");
  assert.ok(message.includes("com.evil\\\\u202egnp.exe"), message);
});
