import assert from "assert";
import { type AppMark, parseMarks, unknownMarked, unmarked, withMarks } from "./marks.ts";
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
      ['{"com.a": {"views": ["x"], "version": 2}}', /version: expected the version/],
    ] as const
  ) {
    assert.match(parseMarks(text).problems.join("; "), problem, text);
  }
});

const APP = { signerId: "signer-a", version: "1.0.0" };
const bound = (views: string[], destructive: string[], binding = APP): AppMark => ({
  views: new Set(views),
  destructive: new Set(destructive),
  signer: binding.signerId,
  version: binding.version,
});

Deno.test("marks make a view read-only and a method destructive, and give the same object back each time", () => {
  assert.deepEqual(unmarked(manifest), { noViews: true, noDestructive: true });
  const mark = bound(["get"], ["clear"]);
  const marked = withMarks(manifest, mark, APP);
  assert.equal(marked.methods.find((m) => m.name === "get")!.intent, "read_only");
  assert.equal(marked.methods.find((m) => m.name === "clear")!.destructive, true);
  assert.deepEqual(unmarked(marked), { noViews: false, noDestructive: false });
  assert.equal(marked.unappliedMarks, undefined);
  assert.equal(withMarks(manifest, mark, { ...APP }), marked, "stable between polls");
  assert.equal(withMarks(manifest, undefined, APP), manifest);
  assert.deepEqual(unknownMarked(bound(["gett"], []), manifest), ["gett"]);
});

Deno.test("a view mark binds the signer and version it names; a destructive mark binds every app of the package", () => {
  const cases: [
    string,
    AppMark,
    { signerId: string | null; version: string | null },
    RegExp,
  ][] = [
    [
      "no binding",
      { ...bound(["get"], ["clear"]), signer: null, version: null },
      APP,
      /add "signer": "signer-a", "version": "1.0.0"/,
    ],
    [
      "an upgrade in place",
      bound(["get"], ["clear"]),
      { ...APP, version: "2.0.0" },
      /written for version 1.0.0; 2.0.0 is installed/,
    ],
    [
      "another signer's app",
      bound(["get"], ["clear"]),
      { ...APP, signerId: "signer-b" },
      /written for signer signer-a; this app is signed by signer-b/,
    ],
    [
      "an unsigned app",
      bound(["get"], ["clear"]),
      { signerId: null, version: "1.0.0" },
      /signed app with a version/,
    ],
  ];
  for (const [what, mark, app, why] of cases) {
    const marked = withMarks(manifest, mark, app);
    assert.equal(marked.methods.find((m) => m.name === "get")!.intent, undefined, what);
    assert.equal(marked.methods.find((m) => m.name === "clear")!.destructive, true, what);
    assert.match(marked.unappliedMarks!.join("; "), why, what);
  }
});

Deno.test("a view mark never overrides an ABI that tells views apart and declares the method writing, or marks it destructive", () => {
  const honest = parseAbiManifest({
    schema_version: "wasm-abi/1",
    types: {},
    methods: [
      { name: "count", params: [], returns: { kind: "u32" }, intent: "read_only" },
      {
        name: "peek",
        params: [],
        returns: { kind: "string" },
        intent: "mutating",
        destructive: true,
      },
      { name: "touch", params: [], returns: { kind: "unit" } },
    ],
    events: [],
  });
  const marked = withMarks(honest, bound(["count", "peek", "touch"], []), APP);
  const intent = (name: string) => marked.methods.find((m) => m.name === name)!.intent;
  assert.equal(intent("count"), "read_only");
  assert.notEqual(intent("peek"), "read_only");
  assert.notEqual(intent("touch"), "read_only");
  assert.deepEqual(marked.unappliedMarks, [
    "peek: its ABI marks it destructive",
    "touch: its ABI tells views apart and declares it writing",
  ]);
});
