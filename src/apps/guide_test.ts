import assert from "assert";
import fc from "fast-check";
import { realDataTest, realDataText } from "../testing/unit.ts";
import { DATA, dataText } from "../../tests/sim_node/apps/data.ts";
import { decodeMetadata, guideBlocks, guideHash, guidePointer, procedures } from "./guide.ts";
import { guideUri } from "../answer/uris.ts";

const bytesOf = (text: string) => Array.from(new TextEncoder().encode(text));

Deno.test("metadata bytes holding a UTF-8 JSON object decode to that object", () => {
  const meta = { name: "Mero Issue Tracker", guide: "# Guide\n\nÜnïcødé ✓ 𝄞", tags: ["a"] };
  assert.deepEqual(decodeMetadata(bytesOf(JSON.stringify(meta))), meta);
  assert.deepEqual(decodeMetadata(new TextEncoder().encode(JSON.stringify(meta))), meta);
  assert.deepEqual(decodeMetadata(bytesOf('{\n  "name": "kv"\n}')), { name: "kv" });
});

const NOT_METADATA: { name: string; value: unknown }[] = [
  { name: "undefined", value: undefined },
  { name: "null", value: null },
  { name: "a string", value: '{"name":"kv"}' },
  { name: "an object", value: { name: "kv" } },
  { name: "no bytes", value: [] },
  { name: "a byte above 255", value: [123, 256, 125] },
  { name: "a negative byte", value: [123, -1, 125] },
  { name: "a fractional byte", value: [123, 1.5, 125] },
  { name: "a byte as a string", value: ["123", "125"] },
  { name: "invalid UTF-8", value: [123, 0xff, 125] },
  { name: "an overlong UTF-8 encoding", value: [0x22, 0xc0, 0xae, 0x22] },
  { name: "a UTF-8 encoded surrogate", value: [0x22, 0xed, 0xa0, 0x80, 0x22] },
  { name: "a truncated UTF-8 sequence", value: [0x22, 0xe2, 0x82, 0x22] },
  { name: "a byte-order mark", value: [0xef, 0xbb, 0xbf, ...bytesOf("{}")] },
  { name: "JSON that is an array", value: bytesOf('["kv"]') },
  { name: "JSON that is a string", value: bytesOf('"kv"') },
  { name: "JSON null", value: bytesOf("null") },
  { name: "text that is not JSON", value: bytesOf("name: kv") },
];

for (const { name, value } of NOT_METADATA) {
  Deno.test(`metadata given as ${name} counts as no metadata`, () => {
    assert.equal(decodeMetadata(value), null);
  });
}

Deno.test("any JSON object survives encoding to metadata bytes and decoding", () => {
  fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
    const decoded = decodeMetadata(bytesOf(JSON.stringify(object)));
    assert.deepEqual(decoded, JSON.parse(JSON.stringify(object)));
  }));
});

Deno.test("decoded metadata always came from bytes that re-encode exactly", () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 24 }), fc.boolean(), (noise, wrap) => {
    const bytes = wrap ? [...bytesOf('{"k":"'), ...noise, ...bytesOf('"}')] : [...noise];
    const decoded = decodeMetadata(bytes);
    if (decoded === null) return;
    assert.deepEqual(bytesOf(new TextDecoder().decode(new Uint8Array(bytes))), bytes);
  }));
});

Deno.test("the guide hash is the first 16 hex of sha256, and no guide hashes as the empty text", async () => {
  assert.equal(await guideHash(""), "e3b0c44298fc1c14");
  assert.equal(await guideHash(null), "e3b0c44298fc1c14");
  assert.equal(await guideHash("abc"), "ba7816bf8f01cfea");
  assert.notEqual(await guideHash("# Guide"), await guideHash("# Guide\n"));
});

Deno.test("the procedures of the sample issue-tracker guide are its ### titles under ## Procedures", () => {
  assert.deepEqual(procedures(dataText(DATA.issueTrackerGuide)), [
    "Link the repository",
    "Open an issue",
    "Work an issue",
    "Talk about an issue",
    "Close out an issue",
  ]);
});

realDataTest(
  "the procedures of the real mero-issue-tracker guide are its ### titles under ## Procedures",
  () => {
    const guide = realDataText("apps/apps/mero-issue-tracker/logic/GUIDE.md");
    assert.deepEqual(procedures(guide), [
      "Add a repo",
      "List repos",
      "File an issue",
      "Find issues",
      "Triage an issue",
      "Discuss an issue",
      "Delete an issue",
      "Build a fix prompt",
    ]);
  },
);

const PROCEDURE_CASES: { name: string; guide: string; expected: string[] }[] = [
  { name: "a guide without a Procedures section", guide: "# App\n\n### Not one\n", expected: [] },
  { name: "an empty guide", guide: "", expected: [] },
  {
    name: "headings before the section",
    guide: "## Overview\n### Intro\n## Procedures\n### Do it\n",
    expected: ["Do it"],
  },
  {
    name: "a ### line inside a ``` fence",
    guide: "## Procedures\n### One\n```md\n### Fake\n## Fake\n```\n### Two\n",
    expected: ["One", "Two"],
  },
  {
    name: "a ### line inside a ~~~ fence",
    guide: "## Procedures\n~~~\n### Fake\n~~~\n### Real\n",
    expected: ["Real"],
  },
  {
    name: "a ``` line inside a ```` fence",
    guide: "## Procedures\n````\n```\n### Fake\n```\n````\n### Real\n",
    expected: ["Real"],
  },
  {
    name: "a ~~~ line inside a ``` fence",
    guide: "## Procedures\n```\n~~~\n### Fake\n```\n### Real\n",
    expected: ["Real"],
  },
  {
    name: "a fence indented in a list item",
    guide: "## Procedures\n### A\n1. step\n\n   ```json\n   ### {}\n   ```\n### B\n",
    expected: ["A", "B"],
  },
  {
    name: "an unclosed fence",
    guide: "## Procedures\n### A\n```\n### Fake\n",
    expected: ["A"],
  },
  {
    name: "inline code that looks like a fence",
    guide: "## Procedures\n```not a fence```\n### A\n",
    expected: ["A"],
  },
  {
    name: "a ## Procedures heading inside a fence",
    guide: "```\n## Procedures\n### Fake\n```\n### Also not\n",
    expected: [],
  },
  {
    name: "the next ## heading",
    guide: "## Procedures\n### A\n## Rules\n### Not a procedure\n",
    expected: ["A"],
  },
  {
    name: "a # heading",
    guide: "## Procedures\n### A\n# Appendix\n### Not a procedure\n",
    expected: ["A"],
  },
  {
    name: "#### headings and text that merely starts with #",
    guide: "## Procedures\n#### Sub\n###NoSpace\n#tag\n    ### indented code\n### A\n",
    expected: ["A"],
  },
  {
    name: "closing hashes, extra spaces and empty headings",
    guide: "## Procedures ##\n###   Spaced out   ###\n###\n### ###\n  ### Indented\n",
    expected: ["Spaced out", "Indented"],
  },
  {
    name: "CRLF line ends",
    guide: "## Procedures\r\n### A\r\n```\r\n### Fake\r\n```\r\n### B\r\n",
    expected: ["A", "B"],
  },
  {
    name: "a second Procedures section",
    guide: "## Procedures\n### A\n## Other\n## Procedures\n### B\n",
    expected: ["A"],
  },
];

for (const { name, guide, expected } of PROCEDURE_CASES) {
  Deno.test(`procedures with ${name}`, () => {
    assert.deepEqual(procedures(guide), expected);
  });
}

Deno.test("a guide is shown as an attribution line then an embedded Markdown resource", () => {
  const uri = guideUri("5HnQ3rVX", "0.3.1");
  const [line, resource] = guideBlocks({
    package: "com.calimero.mero-issue-tracker",
    signerId: "ed25519:Signer1",
    uri,
    text: "# Guide",
  });
  assert.equal(line.type, "text");
  assert.match(line.text, /written by the author of com\.calimero\.mero-issue-tracker/);
  assert.match(line.text, /ed25519:Signer1/);
  assert.match(line.text, /third-party text/);
  assert.deepEqual(resource, {
    type: "resource",
    resource: { uri, mimeType: "text/markdown", text: "# Guide" },
  });
});

Deno.test("a guide whose signer is unknown says so", () => {
  const [line] = guideBlocks({ package: "kv", signerId: null, uri: "u", text: "" });
  assert.match(line.text, /unknown signer/);
});

Deno.test("the guide pointer names the URI and says describe_app shows the guide again", () => {
  const uri = guideUri("5HnQ3rVX", null);
  const block = guidePointer(uri);
  assert.equal(block.type, "text");
  assert.equal(block.text.includes(uri), true);
  assert.match(block.text, /describe_app/);
});
