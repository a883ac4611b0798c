import assert from "assert";
import { escapeControls, escapeHidden, oneLine, stripControls } from "./text.ts";
import { hasControls } from "../testing/unit.ts";

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

Deno.test("hidden characters come out as escapes that JSON reads back; emoji sequences stay whole", () => {
  const tags = String.fromCodePoint(0xE0049, 0xE0047, 0xE004E); // "IGN" in Unicode tag characters
  const value = `ok\u200B\u200B \u202Egnp.exe\u202C ${tags} soft\u00ADhyphen \uE000 end`;
  const escaped = escapeHidden(value);
  assert.equal(
    escaped,
    "ok\\u200b\\u200b \\u202egnp.exe\\u202c \\udb40\\udc49\\udb40\\udc47\\udb40\\udc4e soft\\u00adhyphen \\ue000 end",
  );
  assert.doesNotMatch(escaped, /[\p{Cf}\p{Co}]/u);
  // Inside JSON the escapes are JSON's: the text parses back to the very value.
  assert.equal(JSON.parse(escapeHidden(JSON.stringify(value))), value);
  const family = "👩\u200D👩\u200D👧"; // a ZWJ sequence
  const scotland = String.fromCodePoint(
    0x1F3F4,
    0xE0067,
    0xE0062,
    0xE0073,
    0xE0063,
    0xE0074,
    0xE007F,
  );
  assert.equal(escapeHidden(`${family} ${scotland}`), `${family} ${scotland}`);
  assert.equal(escapeHidden("a\u200Db"), "a\\u200db", "a joiner between letters is not an emoji");
});
