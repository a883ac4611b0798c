import assert from "assert";
import fc from "fast-check";
import { Ajv2020 } from "ajv/dist/2020";
import { type AbiManifest, type AbiMethod, resolveType, type TypeRef } from "./abi_format.ts";
import { parseAbiManifest } from "./abi_parse.ts";
import { parseJson, stringifyJson } from "../lib/json.ts";
import { methodInputSchema, methodOutputSchema } from "./schema.ts";
import { fromWireResult, toWireArgs } from "./values.ts";

const TYPES = {
  Person: {
    kind: "record",
    fields: [
      { name: "name", type: { kind: "string" } },
      { name: "age", type: { kind: "u32" } },
      { name: "nick", type: { kind: "string" }, nullable: true },
    ],
  },
  Filter: {
    kind: "record",
    fields: [
      { name: "tags", type: { kind: "list", items: { kind: "string" } } },
      { name: "owner", type: { $ref: "Person" }, nullable: true },
    ],
  },
  Color: { kind: "variant", variants: [{ name: "Red" }, { name: "Green" }] },
  Action: {
    kind: "variant",
    variants: [
      { name: "Ping" },
      { name: "SetName", payload: { kind: "string" } },
      { name: "Stamp", payload: { kind: "u64" } },
      { name: "Update", payload: { $ref: "Update" } },
      { name: "MultiTuple", payload: { $ref: "Action_MultiTuple" } },
    ],
  },
  Update: { kind: "record", fields: [{ name: "age", type: { kind: "u32" } }] },
  Action_MultiTuple: {
    kind: "record",
    fields: [
      { name: "field_0", type: { kind: "u32" } },
      { name: "field_1", type: { kind: "bytes" } },
    ],
  },
  UserId: { kind: "alias", target: { kind: "bytes", size: 4 } },
};

/** A manifest with one method `m` taking `p` of the given type and returning it. */
function single(type: unknown, extra: Record<string, unknown> = {}) {
  const manifest: AbiManifest = parseAbiManifest({
    schema_version: "wasm-abi/1",
    types: TYPES,
    methods: [{ name: "m", params: [{ name: "p", type }], returns: type, ...extra }],
    events: [],
  });
  return { manifest, method: manifest.methods[0] };
}

function wire(type: unknown, p: unknown): unknown {
  const { manifest, method } = single(type);
  const result = toWireArgs(manifest, method, { p });
  assert.ok(result.ok, result.ok ? "" : result.message);
  return result.value.p;
}

function refusal(type: unknown, p: unknown): string {
  const { manifest, method } = single(type);
  const result = toWireArgs(manifest, method, { p });
  assert.equal(result.ok, false, `accepted ${JSON.stringify(p)}`);
  return result.ok ? "" : result.message;
}

const u64 = { kind: "u64" };
const i64 = { kind: "i64" };

const ACCEPTED: [string, unknown, unknown, unknown][] = [
  ["u64 decimal string", u64, "18446744073709551615", 18446744073709551615n],
  ["u64 JSON integer", u64, 42, 42n],
  ["i64 minimum", i64, "-9223372036854775808", -9223372036854775808n],
  ["i64 as bigint", i64, -5n, -5n],
  ["i32 integer", { kind: "i32" }, -2147483648, -2147483648],
  ["u32 decimal string", { kind: "u32" }, "7", 7],
  ["f64", { kind: "f64" }, 1.5, 1.5],
  ["bool", { kind: "bool" }, false, false],
  ["unit", { kind: "unit" }, null, null],
  ["bytes hex", { kind: "bytes" }, "00ff10", [0, 255, 16]],
  ["bytes 0x hex", { kind: "bytes" }, "0xABcd", [171, 205]],
  ["bytes array", { kind: "bytes" }, [1, 2], [1, 2]],
  ["sized bytes via alias", { $ref: "UserId" }, "01020304", [1, 2, 3, 4]],
  ["list of u64", { kind: "list", items: u64 }, ["1", 2], [1n, 2n]],
  ["map of u64", { kind: "map", key: { kind: "string" }, value: u64 }, { a: "3" }, { a: 3n }],
  ["tuple", { kind: "tuple", elements: [{ kind: "string" }, u64] }, ["x", "9"], ["x", 9n]],
  ["record, nullable field omitted", { $ref: "Person" }, { name: "A", age: 3 }, {
    name: "A",
    age: 3,
    nick: null,
  }],
  ["record, nullable field null", { $ref: "Person" }, { name: "A", age: 3, nick: null }, {
    name: "A",
    age: 3,
    nick: null,
  }],
  ["unit-only variant", { $ref: "Color" }, "Green", "Green"],
  ["unit-only variant as object", { $ref: "Color" }, { Red: null }, "Red"],
  ["unit variant among payloads", { $ref: "Action" }, { Ping: null }, "Ping"],
  ["unit variant as a name", { $ref: "Action" }, "Ping", "Ping"],
  ["newtype variant", { $ref: "Action" }, { SetName: "x" }, { SetName: "x" }],
  ["64-bit payload", { $ref: "Action" }, { Stamp: "12" }, { Stamp: 12n }],
  ["struct variant", { $ref: "Action" }, { Update: { age: 30 } }, { Update: { age: 30 } }],
  ["tuple variant from its record", { $ref: "Action" }, {
    MultiTuple: { field_0: 1, field_1: "ff" },
  }, { MultiTuple: [1, [255]] }],
  ["tuple variant from an array", { $ref: "Action" }, { MultiTuple: [2, [7]] }, {
    MultiTuple: [2, [7]],
  }],
  [
    "CRDT wrapper",
    { kind: "record", fields: [], crdt_type: "lww_register", inner_type: u64 },
    "5",
    5n,
  ],
  ["opaque CRDT", { kind: "record", fields: [], crdt_type: "counter" }, { any: 1 }, { any: 1 }],
  ["unknown kind", { kind: "decimal" }, { any: [1, "x"] }, { any: [1, "x"] }],
];

for (const [name, type, given, expected] of ACCEPTED) {
  Deno.test(`toWireArgs accepts ${name} and sends the wire form`, () => {
    assert.deepEqual(wire(type, given), expected);
  });
}

const REFUSED: [string, unknown, unknown, string][] = [
  ["u64 negative", u64, "-1", "p: expected u64 (a decimal string from 0 to 18446744073709551615)"],
  ["u64 too large", u64, "18446744073709551616", "expected u64"],
  ["u64 fraction", u64, 1.5, "got 1.5"],
  ["unsafe JSON integer", u64, 2 ** 60, 'pass it as a decimal string, e.g. "1152921504606846976"'],
  ["i32 overflow", { kind: "i32" }, 2147483648, "expected i32 (an integer from -2147483648"],
  ["string given a number", { kind: "string" }, 5, "p: expected a string, got 5"],
  ["f64 given a string", { kind: "f64" }, "1", "expected a number"],
  ["odd hex", { kind: "bytes" }, "abc", "expected bytes as a hex string or an array of 0-255"],
  ["byte out of range", { kind: "bytes" }, [256], "expected bytes"],
  ["wrong size", { $ref: "UserId" }, "0102", "expected 4 bytes"],
  ["tuple length", { kind: "tuple", elements: [u64] }, [], "expected an array of 1 items"],
  ["unknown variant", { $ref: "Color" }, "Blue", "p: expected one of Red, Green"],
  ["two variants at once", { $ref: "Action" }, { Ping: null, SetName: "x" }, "expected one of"],
  [
    "payload variant without value",
    { $ref: "Action" },
    "SetName",
    'SetName needs a value: {"SetName": …}',
  ],
  ["unit variant with value", { $ref: "Action" }, { Ping: 1 }, "p.Ping: Ping takes no value"],
  ["record missing field", { $ref: "Person" }, { name: "A" }, "p.age: missing (expected u32)"],
  ["record missing list", { $ref: "Filter" }, {}, "p.tags: missing (expected list<string>)"],
  [
    "record unknown field",
    { $ref: "Person" },
    { name: "A", age: 1, x: 1 },
    "p.x: unknown field; expected fields name, age, nick",
  ],
  [
    "record given a list",
    { $ref: "Person" },
    [],
    "p: expected an object with fields name, age, nick, got []",
  ],
];

for (const [name, type, given, message] of REFUSED) {
  Deno.test(`toWireArgs refuses ${name} with a message that says so`, () => {
    const text = refusal(type, given);
    assert.ok(text.includes(message), `${text}\n  should include: ${message}`);
    assert.match(text, /\nSignature: \[mut\] m\(p: .*\)/);
  });
}

Deno.test("toWireArgs names every bad parameter by path and ends with the signature", () => {
  const manifest = parseAbiManifest({
    schema_version: "wasm-abi/1",
    types: TYPES,
    methods: [{
      name: "search",
      intent: "read_only",
      params: [
        { name: "query", type: { kind: "string" } },
        { name: "filter", type: { $ref: "Filter" } },
        { name: "limit", type: { kind: "u32" }, nullable: true },
      ],
      returns: { kind: "list", items: { $ref: "Person" } },
    }],
    events: [],
  });
  const result = toWireArgs(manifest, manifest.methods[0], {
    filter: { tags: ["a", "b", 3], owner: { name: 1, age: "x" } },
    limit: -1,
  });
  assert.equal(result.ok, false);
  assert.equal(
    result.ok ? "" : result.message,
    [
      "Invalid arguments for search:",
      "- query: missing (expected string).",
      "- filter.tags[2]: expected a string, got 3.",
      "- filter.owner.name: expected a string, got 1.",
      '- filter.owner.age: expected u32 (an integer from 0 to 4294967295), got "x".',
      "- limit: expected u32 (an integer from 0 to 4294967295), got -1.",
      "Signature: [view] search(query: string, filter: Filter, limit?: u32) -> list<Person>",
    ].join("\n"),
  );
});

Deno.test("toWireArgs forwards only declared params and sends omitted nullable ones as null", () => {
  const { manifest, method } = single({ kind: "string" });
  method.params[0].nullable = true;
  assert.deepEqual(toWireArgs(manifest, method, { app_handle: "h", context: "c" }), {
    ok: true,
    value: { p: null },
  });
});

Deno.test("toWireArgs lists at most twenty problems", () => {
  const { manifest, method } = single({ kind: "list", items: { kind: "bool" } });
  const result = toWireArgs(manifest, method, { p: new Array(25).fill(0) });
  const lines = result.ok ? [] : result.message.split("\n");
  assert.equal(lines.filter((l) => l.startsWith("- p[")).length, 20);
  assert.ok(lines.includes("- …and 5 more."));
});

const RESULTS: [string, unknown, unknown, unknown][] = [
  ["u64 number", u64, 42, "42"],
  ["u64 bigint", u64, 18446744073709551615n, "18446744073709551615"],
  ["i64 negative bigint", i64, -9223372036854775808n, "-9223372036854775808"],
  ["u32 stays a number", { kind: "u32" }, 7, 7],
  ["bytes", { kind: "bytes" }, [0, 255, 16], "00ff10"],
  ["alias bytes", { $ref: "UserId" }, [1, 2, 3, 4], "01020304"],
  ["list of u64", { kind: "list", items: u64 }, [1, 2n], ["1", "2"]],
  ["map of bytes", { kind: "map", key: { kind: "string" }, value: { kind: "bytes" } }, {
    k: [10],
  }, { k: "0a" }],
  ["tuple", { kind: "tuple", elements: [{ kind: "string" }, u64] }, ["x", 9], ["x", "9"]],
  ["record", { $ref: "Person" }, { name: "A", age: 3, nick: null }, {
    name: "A",
    age: 3,
    nick: null,
  }],
  ["unit-only variant", { $ref: "Color" }, "Red", "Red"],
  ["unit variant among payloads", { $ref: "Action" }, "Ping", "Ping"],
  ["64-bit payload", { $ref: "Action" }, { Stamp: 5 }, { Stamp: "5" }],
  ["tuple variant", { $ref: "Action" }, { MultiTuple: [1, [255]] }, {
    MultiTuple: { field_0: 1, field_1: "ff" },
  }],
  ["unexpected shape", { $ref: "Person" }, "surprise", "surprise"],
  ["stray bigint in an unknown kind", { kind: "decimal" }, { v: 2n ** 70n }, {
    v: "1180591620717411303424",
  }],
  ["null for a non-nullable return", { kind: "string" }, null, null],
];

for (const [name, type, output, expected] of RESULTS) {
  Deno.test(`fromWireResult converts ${name}`, () => {
    const { manifest, method } = single(type);
    assert.deepEqual(fromWireResult(manifest, method, output), expected);
  });
}

Deno.test("fromWireResult of a method without a return gives null", () => {
  const { manifest, method } = single({ kind: "bool" });
  const bare: AbiMethod = { name: "m", params: [] };
  assert.equal(fromWireResult(manifest, bare, undefined), null);
  assert.equal(fromWireResult(manifest, method, undefined), null);
});

// ---- Property tests: random ABI types, values in schema form, through schema, wire and back ----

type Ref = Record<string, unknown>;
type Json = Record<string, unknown>;
const NAME = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/);
const LEAVES: Ref[] = [
  { kind: "bool" },
  { kind: "string" },
  { kind: "f64" },
  { kind: "f32" },
  { kind: "i32" },
  { kind: "u32" },
  { kind: "i64" },
  { kind: "u64" },
  { kind: "unit" },
  { kind: "bytes" },
  { kind: "bytes", size: 3 },
  { $ref: "Person" },
  { $ref: "Color" },
  { $ref: "Action" },
  { $ref: "UserId" },
];

/** Random ABI types: collections, inline records and variants, aliases, CRDT wrappers. */
const arbType: fc.Arbitrary<Ref> = fc.letrec<{ type: Ref }>((tie) => ({
  type: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...LEAVES),
    tie("type").map((items) => ({ kind: "list", items })),
    tie("type").map((value) => ({ kind: "map", key: { kind: "string" }, value })),
    fc.array(tie("type"), { minLength: 1, maxLength: 3 }).map((elements) => ({
      kind: "tuple",
      elements,
    })),
    fc.uniqueArray(fc.tuple(NAME, tie("type"), fc.boolean()), {
      minLength: 1,
      maxLength: 4,
      selector: ([name]) => name,
    }).map((fields) => ({
      kind: "record",
      fields: fields.map(([name, type, nullable]) => ({ name, type, nullable })),
    })),
    fc.uniqueArray(fc.tuple(NAME, fc.option(tie("type"), { nil: undefined })), {
      minLength: 1,
      maxLength: 4,
      selector: ([name]) => name,
    }).map((variants) => ({
      kind: "variant",
      variants: variants.map(([name, payload]) => (payload ? { name, payload } : { name })),
    })),
    tie("type").map((target) => ({ kind: "alias", target })),
    tie("type").map((inner_type) => ({
      kind: "record",
      fields: [],
      crdt_type: "lww_register",
      inner_type,
    })),
  ),
})).type;

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const safeKey = fc.string({ maxLength: 4 }).filter((k) => k !== "__proto__");

/** A value of `type` in schema form, plus the form the result takes after the round trip. */
function arbValue(manifest: AbiManifest, type: Ref): fc.Arbitrary<[unknown, unknown]> {
  const same = (arb: fc.Arbitrary<unknown>) => arb.map((v): [unknown, unknown] => [v, v]);
  if (typeof type.$ref === "string") {
    return arbValue(manifest, manifest.types[type.$ref] as unknown as Ref);
  }
  if (type.inner_type) return arbValue(manifest, type.inner_type as Ref);
  switch (type.kind) {
    case "bool":
      return same(fc.boolean());
    case "string":
      return same(fc.string({ maxLength: 5 }));
    case "f64":
      // JSON has no -0: it reads back as 0, so generate 0 for it.
      return same(fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x === 0 ? 0 : x));
    case "f32":
      return same(fc.float({ noNaN: true, noDefaultInfinity: true }).map((x) => x === 0 ? 0 : x));
    case "i32":
      return same(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
    case "u32":
      return same(fc.integer({ min: 0, max: 2 ** 32 - 1 }));
    case "i64":
      return same(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String));
    case "u64":
      return same(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String));
    case "unit":
      return same(fc.constant(null));
    case "bytes": {
      const size = type.size as number | undefined;
      return same(fc.uint8Array({ minLength: size ?? 0, maxLength: size ?? 6 }).map(hex));
    }
    case "alias":
      return arbValue(manifest, type.target as Ref);
    case "list":
      return fc.array(arbValue(manifest, type.items as Ref), { maxLength: 3 }).map(
        (pairs) => [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
      );
    case "map":
      return fc.dictionary(safeKey, arbValue(manifest, type.value as Ref), { maxKeys: 3 }).map(
        (dict) => [
          Object.fromEntries(Object.entries(dict).map(([k, p]) => [k, p[0]])),
          Object.fromEntries(Object.entries(dict).map(([k, p]) => [k, p[1]])),
        ],
      );
    case "tuple":
      return fc.tuple(...(type.elements as Ref[]).map((e) => arbValue(manifest, e))).map(
        (pairs) => [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
      );
    case "record": {
      const fields = type.fields as { name: string; type: Ref; nullable?: boolean }[];
      // A nullable field is omitted or given a value (the input schema keeps its plain type);
      // after the round trip an omitted one reads null.
      return fc.tuple(
        ...fields.map((f) =>
          fc.tuple(arbValue(manifest, f.type), f.nullable ? fc.boolean() : fc.constant(true))
        ),
      ).map((items) => {
        const given: Json = {};
        const back: Json = {};
        items.forEach(([[value, result], present], i) => {
          if (present) given[fields[i].name] = value;
          back[fields[i].name] = present ? result : null;
        });
        return [given, back];
      });
    }
    case "variant": {
      const variants = type.variants as { name: string; payload?: Ref }[];
      const allUnit = variants.every((v) => v.payload === undefined);
      return fc.oneof(...variants.map((v) => {
        // A unit case is sent as {"Case": {}} (schema.ts) and comes back as its name.
        if (v.payload === undefined) {
          return fc.constant<[unknown, unknown]>([allUnit ? v.name : { [v.name]: {} }, v.name]);
        }
        return arbValue(manifest, v.payload).map(
          ([value, result]): [unknown, unknown] => [{ [v.name]: value }, { [v.name]: result }],
        );
      }));
    }
    default:
      throw new Error(`no generator for ${JSON.stringify(type)}`);
  }
}

/** Asserts the wire form: 64-bit as bigint, bytes as number arrays, variants externally tagged. */
function checkWire(manifest: AbiManifest, ref: TypeRef, value: unknown): void {
  const type = resolveType(manifest, ref);
  switch (type.kind) {
    case "i64":
    case "u64":
      assert.equal(typeof value, "bigint");
      break;
    case "bytes":
      assert.ok(Array.isArray(value) && value.every((b) => Number.isInteger(b)));
      break;
    case "list":
      (value as unknown[]).forEach((v) => checkWire(manifest, type.items, v));
      break;
    case "map":
      Object.values(value as Json).forEach((v) => checkWire(manifest, type.value, v));
      break;
    case "tuple":
      type.elements.forEach((e, i) => checkWire(manifest, e, (value as unknown[])[i]));
      break;
    case "record":
      for (const f of type.fields) {
        const v = (value as Json)[f.name];
        if (v !== null) checkWire(manifest, f.type, v);
      }
      break;
    case "variant": {
      if (typeof value === "string") {
        assert.equal(type.variants.find((v) => v.name === value)?.payload, undefined);
        break;
      }
      const [name, payload] = Object.entries(value as Json)[0];
      const variant = type.variants.find((v) => v.name === name)!;
      assert.ok(variant.payload !== undefined, `unit variant ${name} sent as an object`);
      const inner = resolveType(manifest, variant.payload);
      if (inner.kind !== "record" || !Array.isArray(payload)) {
        checkWire(manifest, variant.payload, payload);
      }
      break;
    }
  }
}

Deno.test("random ABI values validate, go to the wire exactly and come back unchanged", () => {
  const ajv = new Ajv2020({ strict: true });
  fc.assert(
    fc.property(
      arbType.chain((type) => {
        const { manifest, method } = single(type);
        return fc.tuple(fc.constant({ manifest, method }), arbValue(manifest, type));
      }),
      ([{ manifest, method }, [value, expected]]) => {
        const input = methodInputSchema(manifest, method).json;
        assert.ok(ajv.validate(input, { p: value }), ajv.errorsText());
        const sent = toWireArgs(manifest, method, { p: value });
        assert.ok(sent.ok, sent.ok ? "" : sent.message);
        checkWire(manifest, method.params[0].type, sent.value.p);
        // Through the node's JSON and our lossless parser, as a real call would go.
        const echoed = parseJson(stringifyJson(sent.value.p));
        const back = fromWireResult(manifest, method, echoed);
        assert.deepEqual(back, expected);
        const output = methodOutputSchema(manifest, method);
        if (output !== undefined) assert.ok(ajv.validate(output, back), ajv.errorsText());
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("64-bit integers keep every digit from argument to result", () => {
  const { manifest, method } = single({ kind: "list", items: { kind: "i64" } });
  fc.assert(
    fc.property(fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })), (ints) => {
      const sent = toWireArgs(manifest, method, { p: ints.map(String) });
      assert.ok(sent.ok);
      const text = stringifyJson(sent.value.p);
      assert.equal(text, `[${ints.join(",")}]`);
      assert.deepEqual(fromWireResult(manifest, method, parseJson(text)), ints.map(String));
    }),
  );
});

Deno.test("a key named __proto__ stays an ordinary key in both directions", () => {
  const map = { kind: "map", key: { kind: "string" }, value: u64 };
  const sent = wire(map, JSON.parse('{"__proto__": "5"}')) as Record<string, unknown>;
  assert.deepEqual(Object.entries(sent), [["__proto__", 5n]]);
  assert.equal(Object.getPrototypeOf(sent), Object.prototype);
  const { manifest, method } = single({ $ref: "Person" });
  const back = fromWireResult(manifest, method, JSON.parse('{"name":"A","__proto__":{"x":1}}'));
  assert.deepEqual(Object.keys(back as object), ["name", "__proto__"]);
  assert.equal(Object.getPrototypeOf(back), Object.prototype);
});

Deno.test("parameters named after Object.prototype members are ordinary names", () => {
  const manifest = parseAbiManifest({
    schema_version: "wasm-abi/1",
    types: {},
    methods: [{
      name: "m",
      params: [
        { name: "toString", type: { kind: "string" }, nullable: true },
        { name: "__proto__", type: { kind: "u32" } },
      ],
      returns: { kind: "unit" },
    }],
    events: [],
  });
  const method = manifest.methods[0];
  const args = JSON.parse('{"__proto__": 7}');
  const wire = toWireArgs(manifest, method, args);
  assert.ok(wire.ok, wire.ok ? "" : wire.message);
  assert.equal(JSON.stringify(wire.value), '{"toString":null,"__proto__":7}');
});
