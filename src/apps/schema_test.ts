import assert from "assert";
import { Ajv2020 } from "ajv/dist/2020";
import type { AbiManifest, AbiMethod } from "./abi_format.ts";
import { parseAbiManifest } from "./abi_parse.ts";
import { methodInputSchema, methodOutputSchema, recursiveTypes } from "./schema.ts";
import { REAL_ABI_FILES, realDataTest, realDataText } from "../testing/unit.ts";
import { DATA, dataText } from "../../tests/sim_node/apps/data.ts";

type Json = Record<string, unknown>;

const REAL_ABIS = REAL_ABI_FILES.map((f) => f.path);
const SAMPLE_ABIS = [DATA.kvStoreAbi, DATA.issueTrackerAbi, DATA.coverageAbi];
const readReal = (path: string) => parseAbiManifest(JSON.parse(realDataText(path)));
const readSample = (name: string) => parseAbiManifest(JSON.parse(dataText(name)));

const TYPES = {
  Person: {
    kind: "record",
    doc: "Someone.",
    fields: [
      { name: "name", type: { kind: "string" }, doc: "Full name." },
      { name: "nick", type: { kind: "string" }, nullable: true },
    ],
  },
  Color: { kind: "variant", variants: [{ name: "Red" }, { name: "Green" }] },
  Shape: {
    kind: "variant",
    variants: [{ name: "Dot" }, { name: "Circle", payload: { kind: "u64" } }],
  },
  Id: { kind: "alias", target: { kind: "bytes", size: 4 } },
  Tree: {
    kind: "record",
    fields: [
      { name: "label", type: { kind: "string" } },
      { name: "children", type: { kind: "list", items: { $ref: "Tree" } } },
    ],
  },
};

/** A manifest with one method `m` taking `p` of the given type and returning it. */
function single(type: unknown, extra: Json = {}): { manifest: AbiManifest; method: AbiMethod } {
  const manifest = parseAbiManifest({
    schema_version: "wasm-abi/1",
    types: TYPES,
    methods: [{ name: "m", params: [{ name: "p", type }], returns: type, ...extra }],
    events: [],
  });
  return { manifest, method: manifest.methods[0] };
}

function paramSchema(type: unknown): Json {
  const { manifest, method } = single(type);
  const json = methodInputSchema(manifest, method).json;
  return (json.properties as Json).p as Json;
}

const KIND_CASES: [string, unknown, Json][] = [
  ["bool", { kind: "bool" }, { type: "boolean" }],
  ["string", { kind: "string" }, { type: "string" }],
  ["f32", { kind: "f32" }, { type: "number" }],
  ["f64", { kind: "f64" }, { type: "number" }],
  ["unit", { kind: "unit" }, { type: "null" }],
  ["i32", { kind: "i32" }, { type: "integer", minimum: -2147483648, maximum: 2147483647 }],
  ["u32", { kind: "u32" }, { type: "integer", minimum: 0, maximum: 4294967295 }],
  ["i64", { kind: "i64" }, { type: "string", pattern: "^-?[0-9]+$" }],
  ["u64", { kind: "u64" }, { type: "string", pattern: "^[0-9]+$" }],
  ["bytes", { kind: "bytes" }, {
    type: "string",
    pattern: "^(?:[0-9a-fA-F]{2})*$",
    description: "Bytes as a hex string.",
  }],
  ["sized bytes", { kind: "bytes", size: 32 }, {
    type: "string",
    pattern: "^[0-9a-fA-F]{64}$",
    description: "32 bytes as a hex string.",
  }],
  ["list", { kind: "list", items: { kind: "string" } }, {
    type: "array",
    items: { type: "string" },
  }],
  ["map", { kind: "map", key: { kind: "string" }, value: { kind: "u32" } }, {
    type: "object",
    additionalProperties: { type: "integer", minimum: 0, maximum: 4294967295 },
  }],
  ["tuple", { kind: "tuple", elements: [{ kind: "string" }, { kind: "u64" }] }, {
    type: "array",
    prefixItems: [{ type: "string" }, { type: "string", pattern: "^[0-9]+$" }],
    minItems: 2,
    maxItems: 2,
  }],
  ["record with a nullable field", { $ref: "Person" }, {
    type: "object",
    description: "Someone.",
    properties: { name: { type: "string", description: "Full name." }, nick: { type: "string" } },
    required: ["name"],
    additionalProperties: false,
  }],
  ["unit-only variant", { $ref: "Color" }, { type: "string", enum: ["Red", "Green"] }],
  ["variant with payloads", { $ref: "Shape" }, {
    type: "object",
    properties: {
      Dot: { type: "object", properties: {}, additionalProperties: false },
      Circle: { type: "string", pattern: "^[0-9]+$" },
    },
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
  }],
  ["alias", { $ref: "Id" }, {
    type: "string",
    pattern: "^[0-9a-fA-F]{8}$",
    description: "4 bytes as a hex string.",
  }],
  ["CRDT wrapper", {
    kind: "record",
    fields: [],
    crdt_type: "lww_register",
    inner_type: { kind: "bool" },
  }, { type: "boolean" }],
  ["opaque CRDT", { kind: "record", fields: [], crdt_type: "counter" }, {}],
  ["unknown kind", { kind: "decimal" }, {}],
];

for (const [name, type, expected] of KIND_CASES) {
  Deno.test(`an input of kind ${name} maps to its JSON Schema`, () => {
    assert.deepEqual(paramSchema(type), expected);
  });
}

Deno.test("the input root lists only non-nullable params as required and carries docs", () => {
  const manifest = parseAbiManifest({
    schema_version: "wasm-abi/1",
    types: {},
    methods: [{
      name: "list_issues",
      params: [
        { name: "status", type: { kind: "string" }, nullable: true, doc: "Only this status." },
        { name: "limit", type: { kind: "u32" } },
      ],
    }],
    events: [],
  });
  assert.deepEqual(methodInputSchema(manifest, manifest.methods[0]).json, {
    type: "object",
    properties: {
      status: { type: "string", description: "Only this status." },
      limit: { type: "integer", minimum: 0, maximum: 4294967295 },
    },
    required: ["limit"],
    additionalProperties: false,
  });
});

Deno.test("a recursive type gets $defs and $ref, and only it", () => {
  const { manifest, method } = single({ $ref: "Tree" });
  assert.deepEqual([...recursiveTypes(manifest)], ["Tree"]);
  const json = methodInputSchema(manifest, method).json;
  assert.deepEqual((json.properties as Json).p, { $ref: "#/$defs/Tree" });
  const tree = (json.$defs as Json).Tree as Json;
  assert.deepEqual((tree.properties as Json).children, {
    type: "array",
    items: { $ref: "#/$defs/Tree" },
  });
  // At the output root the definition is inlined, so the root is still an object.
  const output = methodOutputSchema(manifest, method)!;
  assert.equal(output.type, "object");
  assert.ok(new Ajv2020({ strict: true }).validate(output, { label: "a", children: [] }));
});

Deno.test("output schemas: none for unit, null admitted for non-object or nullable roots", () => {
  const cases: [unknown, Json, Json | undefined][] = [
    [{ kind: "unit" }, {}, undefined],
    [{ kind: "string" }, {}, { anyOf: [{ type: "string" }, { type: "null" }] }],
    [{ kind: "u64" }, { returns_doc: "How many." }, {
      anyOf: [{ type: "string", pattern: "^[0-9]+$" }, { type: "null" }],
      description: "How many.",
    }],
    [{ kind: "map", key: { kind: "string" }, value: { kind: "bool" } }, {}, {
      type: "object",
      additionalProperties: { type: "boolean" },
    }],
    [{ $ref: "Person" }, {}, {
      type: "object",
      description: "Someone.",
      properties: {
        name: { type: "string", description: "Full name." },
        nick: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["name"],
    }],
    [{ $ref: "Color" }, { returns_nullable: true }, {
      anyOf: [{ type: "string", enum: ["Red", "Green"] }, { type: "null" }],
    }],
    [{ kind: "decimal" }, {}, {}],
  ];
  for (const [type, extra, expected] of cases) {
    const { manifest, method } = single(type, extra);
    assert.deepEqual(methodOutputSchema(manifest, method), expected, JSON.stringify(type));
  }
  const noReturn = single({ kind: "bool" });
  delete noReturn.method.returns;
  assert.equal(methodOutputSchema(noReturn.manifest, { ...noReturn.method, name: "x" }), undefined);
});

Deno.test("schemas are handed out as fresh copies of one cached build", () => {
  const { manifest, method } = single({ $ref: "Person" });
  const first = methodInputSchema(manifest, method).json;
  (first.properties as Json).app_handle = { type: "string" };
  const second = methodInputSchema(manifest, method).json;
  assert.equal("app_handle" in (second.properties as Json), false);
  assert.notEqual(methodOutputSchema(manifest, method), methodOutputSchema(manifest, method));
});

/** Every `$ref` in a schema, with the `$defs` name it points at. */
function refsIn(node: unknown, into: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, into));
  else if (typeof node === "object" && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref") into.push(String(value));
      else refsIn(value, into);
    }
  }
  return into;
}

function checkDialect(manifest: AbiManifest, json: Json, where: string, root: "input" | "output") {
  const ajv = new Ajv2020({ strict: true });
  ajv.compile(json);
  if (root === "input") {
    assert.equal(json.type, "object", where);
    for (const key of ["oneOf", "anyOf", "allOf", "$ref"]) assert.equal(key in json, false, where);
  }
  assert.equal("$schema" in json, false, where);
  const recursive = recursiveTypes(manifest);
  for (const ref of refsIn(json)) {
    const name = ref.replace("#/$defs/", "");
    assert.ok(recursive.has(name), `${where}: $ref ${ref} to a non-recursive type`);
  }
  assert.doesNotMatch(JSON.stringify(json), /"type":\[/, `${where}: type array`);
  // A draft-07 client ignores prefixItems and would apply a boolean `items` to every element.
  assert.doesNotMatch(JSON.stringify(json), /"items":(true|false)/, `${where}: boolean items`);
}

function mapsForRealClients(manifests: [string, AbiManifest][]): void {
  for (const [path, manifest] of manifests) {
    for (const method of manifest.methods) {
      const where = `${path} ${method.name}`;
      checkDialect(manifest, methodInputSchema(manifest, method).json, where, "input");
      const output = methodOutputSchema(manifest, method);
      if (output !== undefined) checkDialect(manifest, output, where, "output");
    }
  }
}

Deno.test("every method of every sample ABI maps to schemas real clients accept", () => {
  mapsForRealClients(SAMPLE_ABIS.map((name) => [name, readSample(name)]));
});

realDataTest("every method of every real ABI maps to schemas real clients accept", () => {
  mapsForRealClients(REAL_ABIS.map((path) => [path, readReal(path)]));
});

function noUnknownKindsNorDefs(manifest: AbiManifest): void {
  assert.deepEqual(manifest.problems, []);
  for (const method of manifest.methods) {
    const text = JSON.stringify([
      methodInputSchema(manifest, method).json,
      methodOutputSchema(manifest, method),
    ]);
    assert.doesNotMatch(text, /\$ref|\$defs/, method.name);
    const anyValue = text.replaceAll('"properties":{}', "").includes("{}");
    assert.equal(anyValue, false, `${method.name} has an any-value schema`);
  }
}

Deno.test("the every-construct sample ABI maps with no unknown kinds and no $defs at all", () => {
  noUnknownKindsNorDefs(readSample(DATA.coverageAbi));
});

realDataTest("the core conformance ABI maps with no unknown kinds and no $defs at all", () => {
  noUnknownKindsNorDefs(readReal("core/apps/abi_conformance/abi.expected.json"));
});

Deno.test("kv-store docs become descriptions in both directions", () => {
  const manifest = readSample(DATA.kvStoreAbi);
  const remove = manifest.methods.find((m) => m.name === "remove")!;
  assert.deepEqual(methodInputSchema(manifest, remove).json, {
    type: "object",
    properties: { key: { type: "string", description: "the key to look at" } },
    required: ["key"],
    additionalProperties: false,
  });
  assert.deepEqual(methodOutputSchema(manifest, remove), {
    anyOf: [{ type: "string" }, { type: "null" }],
    description: "the value that was removed, or null when there was none",
  });
});

realDataTest("the later toolchain's kv-store docs become descriptions in both directions", () => {
  const manifest = readReal("mero-mcp/test/fixtures/abi/kv-store.json");
  const get = manifest.methods.find((m) => m.name === "get")!;
  assert.deepEqual(methodInputSchema(manifest, get).json, {
    type: "object",
    properties: { key: { type: "string", description: "The key to read." } },
    required: ["key"],
    additionalProperties: false,
  });
  assert.deepEqual(methodOutputSchema(manifest, get), {
    anyOf: [{ type: "string" }, { type: "null" }],
    description: "The value stored under `key`, or `null` when `key` is absent.",
  });
});

Deno.test("a param doc on a shared named type stays on that param", () => {
  const manifest = parseAbiManifest({
    schema_version: "wasm-abi/1",
    types: TYPES,
    methods: [{
      name: "pair",
      params: [
        { name: "a", type: { $ref: "Person" }, doc: "The first." },
        { name: "b", type: { $ref: "Person" } },
        { name: "c", type: { $ref: "Shape" }, doc: "A shape." },
      ],
    }],
    events: [],
  });
  const props = methodInputSchema(manifest, manifest.methods[0]).json.properties as Record<
    string,
    Json
  >;
  assert.equal(props.a.description, "The first.");
  assert.equal(props.b.description, "Someone.");
  assert.deepEqual(Object.keys(props.a.properties as Json), ["name", "nick"]);
  assert.equal(props.c.description, "A shape.");
  assert.equal(props.c.minProperties, 1, "a doc keeps the variant's bounds");
});

Deno.test("a recursive record with a documented self-reference builds (it overflowed the stack)", () => {
  const manifest = parseAbiManifest({
    schema_version: "wasm-abi/1",
    types: {
      Node: {
        kind: "record",
        fields: [
          { name: "value", type: { kind: "string" } },
          { name: "next", type: { $ref: "Node" }, nullable: true, doc: "The next node." },
        ],
      },
    },
    methods: [{
      name: "walk",
      params: [{ name: "n", type: { $ref: "Node" } }],
      returns: { $ref: "Node" },
    }],
    events: [],
  });
  const method = manifest.methods[0];
  const input = methodInputSchema(manifest, method).json;
  assert.deepEqual(input.properties, { n: { $ref: "#/$defs/Node" } });
  assert.ok((input.$defs as Record<string, unknown>).Node);
  const output = methodOutputSchema(manifest, method)!;
  assert.match(JSON.stringify(output), /"description":"The next node\."/);
  new Ajv2020({ strict: false }).compile(input);
});
