import assert from "assert";
import { addSecret, redactText, redactUrl } from "./redact.ts";

Deno.test("redactUrl drops userinfo, query and fragment and keeps the rest as written", () => {
  const cases: Array<[string, string]> = [
    ["http://u:pw@h:1/x?token=abc", "http://h:1/x"],
    ["http://u:p@ss@h:1/x", "http://h:1/x"],
    ["https://h/p#access_token=abc", "https://h/p"],
    ["http://localhost:2528/node1", "http://localhost:2528/node1"],
    ["http://h/x?email=a@b", "http://h/x"],
    ["not a url?x=1", "not a url"],
  ];
  for (const [input, expected] of cases) assert.equal(redactUrl(input), expected, input);
});

Deno.test("redactText redacts every URL in a text and keeps trailing punctuation", () => {
  assert.equal(
    redactText(
      "error sending request for url (http://h:1/x?token=abc): refused, see https://u:pw@d/e.",
    ),
    "error sending request for url (http://h:1/x): refused, see https://d/e.",
  );
  assert.equal(redactText("no urls here"), "no urls here");
});

Deno.test("secrets the process holds are masked wherever they appear; short values are not", () => {
  addSecret("SECRET-ACCESS-TOKEN-xyz");
  addSecret("short");
  assert.equal(
    redactText("upstream said: Authorization: Bearer SECRET-ACCESS-TOKEN-xyz (short)"),
    "upstream said: Authorization: Bearer [redacted] (short)",
  );
});
