import assert from "assert";
import { paint, scrubSecrets, statusLine, wrap } from "./report.ts";
import { stripAnsi } from "../testing/unit.ts";

Deno.test("paint adds ANSI codes only when colour is on", () => {
  assert.equal(paint({ color: false }, "red", "x"), "x");
  assert.equal(paint({ color: true }, "red", "x"), "\x1b[31mx\x1b[39m");
  assert.equal(stripAnsi(paint({ color: true }, "bold", "x")), "x");
});

Deno.test("a status line pads the tag and label and indents continuation lines under the detail", () => {
  const line = statusLine({ color: false }, "warn", "limit 40", "first\nsecond", 10);
  assert.equal(line, "  warn limit 40   first\n                  second");
});

Deno.test("a status line wraps its detail to the terminal width when one is known", () => {
  const detail = "one two three four five six seven eight nine ten eleven twelve thirteen";
  const line = statusLine({ color: false, width: 50 }, "ok", "x", detail, 4);
  for (const part of line.split("\n")) assert.ok(part.length <= 50, part);
  assert.equal(line.split("\n").length > 1, true);
  assert.equal(statusLine({ color: false }, "ok", "x", detail, 4).split("\n").length, 1);
});

const WRAPS: [string, number, string[]][] = [
  ["a b c", 3, ["a b", "c"]],
  ["abcdef gh", 4, ["abcdef", "gh"]],
  ["", 10, [""]],
];

Deno.test("wrap breaks at spaces and gives an over-long word its own line", () => {
  for (const [text, width, expected] of WRAPS) assert.deepEqual(wrap(text, width), expected);
});

Deno.test("scrubSecrets replaces every configured secret and ignores empty or tiny ones", () => {
  const text = "token abcd1234 and pw hunter22 and abcd1234 again; a b";
  assert.equal(
    scrubSecrets(text, ["abcd1234", "hunter22", null, undefined, "", "a"]),
    "token [redacted] and pw [redacted] and [redacted] again; a b",
  );
});
