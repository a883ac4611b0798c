import assert from "assert";
import { AbiFormatError, type AbiManifest } from "./abi_format.ts";
import { parseAbiManifest } from "./abi_parse.ts";
import { REAL_ABI_FILES, realDataTest, realDataText } from "../testing/unit.ts";
import { DATA, dataText } from "../../tests/sim_node/apps/data.ts";

/** The sample apps' ABIs (in the repository), with their method counts. */
const SAMPLE_ABIS: [string, number][] = [
  [DATA.kvStoreAbi, 11],
  [DATA.issueTrackerAbi, 20],
  [DATA.coverageAbi, 30],
];

/** The real ABI files from public Calimero repositories (optional), with their method counts. */
const REAL_ABIS: [string, number][] = REAL_ABI_FILES.map((f) => [f.path, f.methods]);

function readRealAbi(path: string): unknown {
  return JSON.parse(realDataText(path));
}

function manifest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { schema_version: "wasm-abi/1", types: {}, methods: [], events: [], ...extra };
}

function parsesWhole(abis: [string, number][], read: (path: string) => unknown): void {
  for (const [path, count] of abis) {
    const parsed = parseAbiManifest(read(path));
    assert.equal(parsed.methods.length, count, path);
    assert.deepEqual(parsed.problems, [], path);
  }
}

Deno.test("every sample ABI parses with no problems and keeps all its methods", () => {
  parsesWhole(SAMPLE_ABIS, (path) => JSON.parse(dataText(path)));
});

realDataTest("every real ABI parses with no problems and keeps all its methods", () => {
  parsesWhole(REAL_ABIS, readRealAbi);
});

Deno.test("docs and hints survive parsing", () => {
  const parsed = parseAbiManifest(JSON.parse(dataText(DATA.kvStoreAbi)));
  const get = parsed.methods.find((m) => m.name === "get")!;
  assert.equal(get.params[0].doc, "the key to look at");
  assert.equal(get.returns_doc, "the stored value");
  const remove = parsed.methods.find((m) => m.name === "remove")!;
  assert.deepEqual([remove.destructive, remove.idempotent, remove.returns_nullable], [
    true,
    true,
    true,
  ]);
  assert.equal(parsed.state_root, "StoreState");
  assert.equal(parsed.state_version, 1);
});

realDataTest(
  "the later toolchain's docs and hints survive parsing",
  () => {
    const parsed = parseAbiManifest(readRealAbi("mero-mcp/test/fixtures/abi/kv-store.json"));
    const get = parsed.methods.find((m) => m.name === "get")!;
    assert.equal(get.params[0].doc, "The key to read.");
    assert.match(get.returns_doc!, /or `null` when `key` is absent/);
    const clear = parsed.methods.find((m) => m.name === "clear")!;
    assert.equal(clear.destructive, true);
    assert.equal(clear.idempotent, true);
    assert.equal(parsed.state_root, "KvStore");
    assert.equal(parsed.state_version, 1);
  },
);

Deno.test("schema versions of major 1 are accepted and other majors refused by name", () => {
  const cases: [unknown, string | null][] = [
    ["wasm-abi/1", null],
    ["wasm-abi/1.0", null],
    ["wasm-abi/1.7", null],
    ["wasm-abi/2", 'schema_version "wasm-abi/2" is not supported'],
    ["wasm-abi/10.1", 'schema_version "wasm-abi/10.1" is not supported'],
    ["wasm-abi/0", 'schema_version "wasm-abi/0" is not supported'],
    ["abi/1", 'Not a wasm-abi manifest: "schema_version" is "abi/1"'],
    [undefined, 'Not a wasm-abi manifest: "schema_version" is missing, expected "wasm-abi/1".'],
    [1, "Not a wasm-abi manifest"],
  ];
  for (const [version, error] of cases) {
    const input = manifest({ schema_version: version });
    if (error === null) assert.equal(parseAbiManifest(input).schema_version, version);
    else {
      assert.throws(() => parseAbiManifest(input), (e: Error) => {
        assert.ok(e instanceof AbiFormatError);
        assert.ok(e.message.includes(error), e.message);
        return true;
      });
    }
  }
});

Deno.test("malformed manifests are refused with the offending place named", () => {
  const str = { kind: "string" };
  const cases: [unknown, string][] = [
    [null, "The ABI manifest must be a JSON object"],
    [[], "The ABI manifest must be a JSON object"],
    [manifest({ methods: {} }), '"methods" must be a JSON array'],
    [manifest({ types: [] }), '"types" must be a JSON object'],
    [manifest({ methods: [{ params: [] }] }), 'methods[0] needs a non-empty string "name"'],
    [manifest({ methods: [{ name: "m" }] }), 'method "m" > params must be a JSON array'],
    [manifest({ methods: [{ name: "m", params: [{ name: "p" }] }] }), 'method "m" > param "p"'],
    [
      manifest({ methods: [{ name: "m", params: [{ name: "p", type: { $ref: "Gone" } }] }] }),
      'method "m" > param "p" refers to type "Gone", which the manifest does not define',
    ],
    [
      manifest({ methods: [{ name: "m", params: [], returns: { kind: "list" } }] }),
      'method "m" > returns > items must be a JSON object',
    ],
    [
      manifest({ methods: [{ name: "m", params: [] }, { name: "m", params: [] }] }),
      'method "m" twice',
    ],
    [
      manifest({
        methods: [{ name: "m", params: [{ name: "p", type: str }, { name: "p", type: str }] }],
      }),
      'declares param "p" twice',
    ],
    [
      manifest({ types: { R: { kind: "record", fields: {} } } }),
      'type "R" > fields must be a JSON array',
    ],
    [manifest({ types: { V: { kind: "variant" } } }), 'type "V" > variants must be a JSON array'],
    [
      manifest({ types: { B: { kind: "bytes", size: -1 } } }),
      'type "B": bytes "size" must be a whole number',
    ],
    [
      manifest({ types: { T: { kind: "tuple", elements: "x" } } }),
      'type "T" > elements must be a JSON array',
    ],
    [
      manifest({ types: { A: { $ref: "B" }, B: { kind: "alias", target: { $ref: "A" } } } }),
      "loop without a concrete type",
    ],
    [manifest({ types: { X: { size: 3 } } }), 'type "X" needs a "$ref" or a string "kind"'],
  ];
  for (const [input, message] of cases) {
    assert.throws(() => parseAbiManifest(input), (e: Error) => {
      assert.ok(e instanceof AbiFormatError, String(e));
      assert.ok(e.message.includes(message), `${e.message}\n  should include: ${message}`);
      return true;
    });
  }
});

Deno.test("an unknown kind is kept as an any-value type and reported, never fatal", () => {
  const parsed = parseAbiManifest(manifest({
    types: { Money: { kind: "decimal", scale: 2 } },
    methods: [{ name: "pay", params: [{ name: "amount", type: { kind: "i128" } }] }],
  }));
  assert.deepEqual(parsed.types.Money, { kind: "unknown", unknown_kind: "decimal" });
  assert.deepEqual(parsed.methods[0].params[0].type, { kind: "unknown", unknown_kind: "i128" });
  assert.equal(parsed.problems.length, 2);
  assert.match(
    parsed.problems[0],
    /type "Money": unknown kind "decimal"; it accepts any JSON value/,
  );
  assert.match(parsed.problems[1], /method "pay" > param "amount": unknown kind "i128"/);
});

Deno.test("unknown keys are dropped and odd optional values reported, not fatal", () => {
  const parsed = parseAbiManifest(manifest({
    future_key: true,
    methods: [{
      name: "m",
      params: [],
      intent: "sometimes",
      doc: 42,
      colour: "blue",
    }],
  }));
  assert.equal("future_key" in parsed, false);
  assert.deepEqual(parsed.methods[0], { name: "m", params: [], intent: "unspecified" });
  assert.equal(parsed.problems.length, 2);
  assert.match(parsed.problems.join("\n"), /"doc" should be a string, got 42/);
  assert.match(parsed.problems.join("\n"), /unknown intent "sometimes"/);
});

Deno.test("the compact map key form and missing optional sections are accepted", () => {
  const parsed = parseAbiManifest({
    schema_version: "wasm-abi/1",
    types: {},
    methods: [{
      name: "m",
      params: [{ name: "p", type: { kind: "map", key: "string", value: { kind: "u32" } } }],
    }],
  });
  assert.deepEqual(parsed.methods[0].params[0].type, {
    kind: "map",
    key: { kind: "string" },
    value: { kind: "u32" },
  });
  assert.deepEqual(parsed.events, []);
});

function roundTrips(manifests: unknown[]): void {
  for (const raw of manifests) {
    const parsed: AbiManifest = parseAbiManifest(raw);
    const again = parseAbiManifest(JSON.parse(JSON.stringify(parsed)));
    assert.deepEqual({ ...again, problems: [] }, { ...parsed, problems: [] });
  }
}

Deno.test("a parsed sample manifest is plain data that round-trips through JSON", () => {
  roundTrips(SAMPLE_ABIS.map(([path]) => JSON.parse(dataText(path))));
});

realDataTest("a parsed real manifest is plain data that round-trips through JSON", () => {
  roundTrips(REAL_ABIS.map(([path]) => readRealAbi(path)));
});

Deno.test("long $ref chains parse, and a loop at the end of one is still named", () => {
  const chain = (length: number, last: unknown) => {
    const types: Record<string, unknown> = {};
    for (let i = 0; i < length; i++) {
      types[`T${i}`] = { $ref: i + 1 < length ? `T${i + 1}` : "End" };
    }
    types.End = last;
    return manifest({ types });
  };
  assert.equal(Object.keys(parseAbiManifest(chain(4_000, { kind: "string" })).types).length, 4_001);
  assert.throws(
    () => parseAbiManifest(chain(4_000, { $ref: "T3990" })),
    /T3990 -> .* -> End -> T3990 loop/,
  );
});

Deno.test("names that are not identifiers (controls, markup, 50,000 characters) are refused at the edge", () => {
  const hostile = ["to\u001b[2J</tool>", "x".repeat(50_000), "get value", "1st", "名前"];
  for (const bad of hostile) {
    for (
      const input of [
        manifest({ methods: [{ name: bad, params: [], returns: { kind: "unit" } }] }),
        manifest({ methods: [{ name: "m", params: [{ name: bad, type: { kind: "u32" } }] }] }),
        manifest({ types: { [bad]: { kind: "record", fields: [] } } }),
        manifest({ types: { V: { kind: "variant", variants: [{ name: bad }] } } }),
      ]
    ) {
      assert.throws(() => parseAbiManifest(input), (e: Error) => {
        assert.ok(e instanceof AbiFormatError);
        assert.match(e.message, /not an identifier/);
        assert.ok(!e.message.includes("\u001b") && e.message.length < 400, e.message);
        return true;
      });
    }
  }
});
