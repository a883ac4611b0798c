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
