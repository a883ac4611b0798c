import assert from "node:assert/strict";
import { createOwnWrites } from "./own_writes.ts";

Deno.test("a write's echo is claimed once, in flight or within the echo time after its answer", () => {
  const own = createOwnWrites(1_000);
  const done = own.begin("ctx");
  assert.equal(own.claim("other"), false, "only the written context");
  assert.equal(own.claim("ctx"), true, "while in flight (core emits before it answers)");
  assert.equal(own.claim("ctx"), false, "one echo per write");
  const second = own.begin("ctx");
  second(true);
  const now = Date.now();
  assert.equal(own.claim("ctx", now + 2_000), false, "lapsed after the echo time");
  const third = own.begin("ctx");
  third(true);
  assert.equal(own.claim("ctx", Date.now() + 500), true);
  done(true);
});

Deno.test("a write the node refused expects no echo", () => {
  const own = createOwnWrites();
  own.begin("ctx")(false);
  assert.equal(own.claim("ctx"), false);
});

Deno.test("claims of contexts written once and never heard from again do not pile up", () => {
  const own = createOwnWrites(-1); // every claim lapses as soon as its write answers
  for (let i = 0; i < 5_000; i++) own.begin(`ctx${i}`)(true);
  // Past 256 contexts with claims, each new write sweeps the lapsed ones.
  assert.ok(own.contexts() <= 258, `${own.contexts()} contexts hold claims`);
});

Deno.test("a write that changed nothing hides a peer's change only within the echo time, not a second", () => {
  const own = createOwnWrites();
  own.begin("ctx")(true); // answered; the node sent no echo (nothing changed)
  const answered = Date.now();
  assert.equal(own.claim("ctx", answered + 300), false, "a peer's change 300 ms later is news");
  own.begin("ctx")(true);
  assert.equal(own.claim("ctx", Date.now() + 700), false, "and 700 ms later");
});

Deno.test("a write cancelled after it was sent keeps its claim: its echo may still come", () => {
  const own = createOwnWrites();
  own.begin("ctx")("maybe");
  assert.equal(own.claim("ctx", Date.now() + 50), true);
});
