import assert from "assert";
import type { AbiManifest } from "./abi.ts";
import { checkArgs, checkValue, defaultValue } from "./abi_check.ts";

const abi: AbiManifest = {
  types: {
    Id: { kind: "alias", target: { kind: "bytes", size: 2 } },
    Shape: {
      kind: "variant",
      variants: [{ name: "Dot" }, { name: "Line", payload: { kind: "u32" } }],
    },
    Wrapped: {
      kind: "record",
      fields: [],
      crdt_type: "lww_register",
      inner_type: { kind: "string" },
    },
  },
};

Deno.test("values are checked like serde would, with its wording", () => {
  const cases: [Record<string, unknown>, unknown, string | null][] = [
    [{ kind: "u64" }, 18446744073709551615n, null],
    [
      { kind: "u64" },
      18446744073709551616n,
      "invalid value: integer `18446744073709551616`, expected u64",
    ],
    [{ kind: "i32" }, 1.5, "invalid type: floating point `1.5`, expected i32"],
    [{ kind: "u32" }, "1", 'invalid type: string "1", expected u32'],
    [{ $ref: "Id" }, [1, 2], null],
    [{ $ref: "Id" }, [1], "invalid length 1, expected an array of length 2"],
    [{ $ref: "Shape" }, "Dot", null],
    [{ $ref: "Shape" }, { Line: 3 }, null],
    [{ $ref: "Shape" }, "Square", "unknown variant `Square`, expected one of `Dot`, `Line`"],
    [{ $ref: "Wrapped" }, "text", null],
    [
      { kind: "tuple", elements: [{ kind: "bool" }] },
      [true, false],
      "invalid type: a sequence, expected a tuple of size 1",
    ],
    [
      { kind: "map", key: { kind: "string" }, value: { kind: "bool" } },
      { a: 1 },
      "invalid type: integer `1`, expected a boolean",
    ],
    [{ kind: "mystery" }, { anything: true }, null],
  ];
  for (const [type, value, expected] of cases) {
    assert.equal(checkValue(abi, type, value), expected, JSON.stringify(type));
  }
});

Deno.test("arguments: missing non-nullable params are named, nullable ones may be absent or null", () => {
  const method = {
    name: "m",
    params: [
      { name: "a", type: { kind: "string" } },
      { name: "b", type: { kind: "string" }, nullable: true },
    ],
  };
  assert.equal(checkArgs(abi, method, {}), "missing field `a`");
  assert.equal(checkArgs(abi, method, { a: "x" }), null);
  assert.equal(checkArgs(abi, method, { a: "x", b: null }), null);
  assert.equal(checkArgs(abi, method, { a: null }), "invalid type: null, expected a string");
});

Deno.test("default values follow the type", () => {
  assert.deepEqual(defaultValue(abi, { $ref: "Id" }), [0, 0]);
  assert.deepEqual(defaultValue(abi, { $ref: "Shape" }), "Dot");
  assert.deepEqual(
    defaultValue(abi, {
      kind: "record",
      fields: [{ name: "n", type: { kind: "u64" } }, {
        name: "o",
        type: { kind: "string" },
        nullable: true,
      }],
    }),
    { n: 0, o: null },
  );
});
