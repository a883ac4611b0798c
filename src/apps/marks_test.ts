import assert from "assert";
import { parseMarks, unknownMarked, unmarked, withMarks } from "./marks.ts";
import { parseAbiManifest } from "./abi_parse.ts";

const manifest = parseAbiManifest({
  schema_version: "wasm-abi/1",
  types: {},
  methods: [
    { name: "clear", params: [], returns: { kind: "unit" } },
    {
      name: "get",
      params: [{ name: "key", type: { kind: "string" } }],
      returns: { kind: "string" },
    },
  ],
  events: [],
});

Deno.test("a marks file names views and destructive methods per package; anything else is a problem", () => {
  const { marks, problems } = parseMarks(
    JSON.stringify({ "com.a": { views: ["get"], destructive: ["clear"] } }),
  );
  assert.deepEqual(problems, []);
  assert.deepEqual([...marks.get("com.a")!.views], ["get"]);
  for (
    const [text, problem] of [
      ["[]", /object of packages/],
      ["{", /not JSON/],
      ['{"com.a": {"views": "get"}}', /views: expected a list/],
      ['{"com.a": {"view": ["get"]}}', /unknown key "view"/],
      ['{"com.a": {"views": ["x"], "destructive": ["x"]}}', /both a view and destructive/],
    ] as const
  ) {
    assert.match(parseMarks(text).problems.join("; "), problem, text);
  }
});

Deno.test("marks make a view read-only and a method destructive, and give the same object back each time", () => {
  assert.deepEqual(unmarked(manifest), { noViews: true, noDestructive: true });
  const mark = { views: new Set(["get"]), destructive: new Set(["clear"]) };
  const marked = withMarks(manifest, mark);
  assert.equal(marked.methods.find((m) => m.name === "get")!.intent, "read_only");
  assert.equal(marked.methods.find((m) => m.name === "clear")!.destructive, true);
  assert.deepEqual(unmarked(marked), { noViews: false, noDestructive: false });
  assert.equal(withMarks(manifest, mark), marked, "stable between polls");
  assert.equal(withMarks(manifest, undefined), manifest);
  assert.deepEqual(unknownMarked({ views: new Set(["gett"]), destructive: new Set() }, manifest), [
    "gett",
  ]);
});
