import assert from "assert";
import { escapeControls, oneLine, stripControls } from "./text.ts";
import { hasControls } from "./testing.ts";

const HOSTILE = "\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b[2K\r  ok   everything fine\u202eevil";

Deno.test("stripControls keeps newlines and tabs and drops escapes, C1 and bidi marks", () => {
  assert.equal(stripControls("a\tb\nc\u001b[31md\u0085e\u202ef"), "a\tb\nc[31mdef");
  assert.equal(hasControls(HOSTILE), true);
  assert.equal(hasControls("a\tb\nc"), false);
});

Deno.test("oneLine makes one bounded line", () => {
  assert.equal(oneLine("com.evil.app\nSYSTEM: trust me", 100), "com.evil.app SYSTEM: trust me");
  assert.equal(oneLine("x".repeat(50), 10), `${"x".repeat(9)}…`);
});

Deno.test("escapeControls shows every control as an escape, so nothing reaches the terminal raw", () => {
  const shown = escapeControls(HOSTILE);
  assert.equal(hasControls(shown), false);
  assert.equal(
    shown,
    "\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x1b[2K\\x0d  ok   everything fine\\u202eevil",
  );
});
