import assert from "assert";
import { isInputRequiredResult, type ServerContext } from "@modelcontextprotocol/server";
import { clientCanAsk, type Confirmer, createConfirmer, type Decision } from "./confirm.ts";

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

/** The state a first round minted, decoded as the SDK's seam hands it to the handler. */
async function firstRound(confirmer: Confirmer, target: unknown): Promise<unknown> {
  const first = await confirmer.decide({ ...ask, target, ctx: ctx() });
  assert.ok(!first.proceed && isInputRequiredResult(first.answer), "the first round asks");
  return await confirmer.verify((first.answer as { requestState: string }).requestState, ctx());
}

const isQuestion = (d: Decision) => !d.proceed && isInputRequiredResult(d.answer);

Deno.test("an answer counts only for the resolved target it was asked about: beside another, it is asked again", async () => {
  const confirmer = createConfirmer(new Uint8Array(32).fill(7));
  const payload = await firstRound(confirmer, { context: "A" });
  const replayed = await confirmer.decide({
    ...ask,
    target: { context: "B" },
    ctx: ctx(payload, accepted),
  });
  assert.ok(isQuestion(replayed), "B is asked about, not run");
  const same = await confirmer.decide({
    ...ask,
    target: { context: "A" },
    ctx: ctx(payload, accepted),
  });
  assert.deepEqual(same, { proceed: true });

  // A state sealed by another process, or changed by the client, is refused by the integrity check.
  const state = (await confirmer.decide({ ...ask, target: {}, ctx: ctx() })) as {
    answer: { requestState: string };
  };
  await assert.rejects(createConfirmer().verify(state.answer.requestState, ctx()));
  await assert.rejects(confirmer.verify(`${state.answer.requestState.slice(0, -3)}AAA`, ctx()));
});

Deno.test("an answer is spent once: a replayed accept, or an accept after a decline, asks again", async () => {
  const confirmer = createConfirmer();
  const target = { context: "A" };
  const payload = await firstRound(confirmer, target);
  assert.deepEqual(
    await confirmer.decide({ ...ask, target, ctx: ctx(payload, accepted) }),
    { proceed: true },
  );
  assert.ok(
    isQuestion(await confirmer.decide({ ...ask, target, ctx: ctx(payload, accepted) })),
    "the same accepted answer, sent again, is asked again",
  );

  const declinedState = await firstRound(confirmer, target);
  const declined = await confirmer.decide({
    ...ask,
    target,
    ctx: ctx(declinedState, { confirm: { action: "decline" } }),
  });
  assert.ok(!declined.proceed && !isInputRequiredResult(declined.answer));
  assert.match(JSON.stringify(declined.answer), /declined, so nothing was done/);
  assert.ok(
    isQuestion(await confirmer.decide({ ...ask, target, ctx: ctx(declinedState, accepted) })),
    "accept after a decline is asked again",
  );
});

Deno.test("an HTTP client's question is bound to its credential: another client's answer is refused", async () => {
  const confirmer = createConfirmer();
  const as = (token: string) =>
    ({ ...ctx(), http: { authInfo: { clientId: "c", token } } }) as unknown as ServerContext;
  const first = await confirmer.decide({ ...ask, target: {}, ctx: as("alice") });
  const state = (first as { answer: { requestState: string } }).answer.requestState;
  await confirmer.verify(state, as("alice"));
  await assert.rejects(confirmer.verify(state, as("mallory")), /bind/);
});

Deno.test("stateless 2025-era HTTP, where what the client declared is unknown, refuses with what to do", async () => {
  const refused = await createConfirmer().decide({
    ...ask,
    target: {},
    ctx: ctx(),
    canAsk: "unknown",
  });
  assert.ok(!refused.proceed && !isInputRequiredResult(refused.answer));
  assert.match(JSON.stringify(refused.answer), /cannot ask over HTTP with the 2025 protocol/);
});

Deno.test("without a way to ask: `ask` proceeds, `require` refuses with what to do", async () => {
  const confirmer = createConfirmer();
  const call = { ...ask, target: { context: "A" }, ctx: ctx(), canAsk: false };
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
    target: {},
    ctx: ctx(),
  });
  const message = JSON.stringify(asked);
  assert.ok(!message.includes("\u202E"), "no raw override");
  assert.ok(message.includes("com.evil\\\\u202egnp.exe"), message);
});
