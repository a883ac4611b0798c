import assert from "assert";
import {
  type AbiManifest,
  type AbiMethod,
  formatType,
  isReadOnly,
  resolveType,
  signatureLine,
  type TypeRef,
} from "./abi_format.ts";

function method(fields: Partial<AbiMethod>): AbiMethod {
  return { name: "m", params: [], ...fields };
}

Deno.test("resolveType follows refs and aliases and unwraps CRDT wrappers", () => {
  const manifest: AbiManifest = {
    schema_version: "wasm-abi/1",
    types: {
      UserId: { kind: "alias", target: { $ref: "Raw" } },
      Raw: { kind: "bytes", size: 32 },
      Reg: {
        kind: "record",
        fields: [],
        crdt_type: "lww_register",
        inner_type: { $ref: "UserId" },
      },
    },
    methods: [],
    events: [],
    problems: [],
  };
  const cases: [TypeRef, unknown][] = [
    [{ $ref: "UserId" }, { kind: "bytes", size: 32 }],
    [{ $ref: "Reg" }, { kind: "bytes", size: 32 }],
    [{ kind: "list", items: { kind: "u64" }, crdt_type: "vector" }, {
      kind: "list",
      items: { kind: "u64" },
      crdt_type: "vector",
    }],
    [{ kind: "alias", target: { kind: "string" } }, { kind: "string" }],
  ];
  for (const [ref, expected] of cases) assert.deepEqual(resolveType(manifest, ref), expected);
});

Deno.test("only read_only intent counts as a read", () => {
  const cases: [AbiMethod["intent"], boolean][] = [
    ["read_only", true],
    ["mutating", false],
    ["unspecified", false],
    [undefined, false],
  ];
  for (const [intent, expected] of cases) assert.equal(isReadOnly(method({ intent })), expected);
});

Deno.test("signature lines are compact and mark views, nullable params and returns", () => {
  const s = { kind: "string" } as const;
  const cases: [AbiMethod, string][] = [
    [
      method({ name: "get", params: [{ name: "key", type: s }], returns: s, intent: "read_only" }),
      "[view] get(key: string) -> string",
    ],
    [
      method({
        name: "set",
        params: [{ name: "key", type: s }, { name: "value", type: s }],
        returns: { kind: "unit" },
      }),
      "[mut] set(key: string, value: string)",
    ],
    [method({ name: "clear" }), "[mut] clear()"],
    [
      method({
        name: "opt",
        params: [{ name: "x", type: { $ref: "Person" }, nullable: true }],
        returns: { $ref: "Person" },
        returns_nullable: true,
      }),
      "[mut] opt(x?: Person) -> Person | null",
    ],
    [
      method({ name: "m", returns: { kind: "map", key: s, value: { kind: "u64" } } }),
      "[mut] m() -> map<string, u64>",
    ],
    [
      method({
        name: "l",
        params: [{
          name: "t",
          type: {
            kind: "list",
            items: { kind: "tuple", elements: [s, { kind: "bytes", size: 32 }] },
          },
        }],
      }),
      "[mut] l(t: list<(string, bytes<32>)>)",
    ],
    [
      method({
        name: "c",
        returns: {
          kind: "record",
          fields: [],
          crdt_type: "lww_register",
          inner_type: { kind: "u32" },
        },
      }),
      "[mut] c() -> u32",
    ],
    [
      method({ name: "u", returns: { kind: "unknown", unknown_kind: "i128" } }),
      "[mut] u() -> i128",
    ],
  ];
  for (const [m, expected] of cases) assert.equal(signatureLine(m), expected);
});

Deno.test("inline records and variants are written out compactly", () => {
  const cases: [TypeRef, string][] = [
    [{
      kind: "record",
      fields: [{ name: "a", type: { kind: "bool" } }, {
        name: "b",
        type: { kind: "i64" },
        nullable: true,
      }],
    }, "{a: bool, b?: i64}"],
    [
      { kind: "variant", variants: [{ name: "A" }, { name: "B", payload: { kind: "string" } }] },
      "A | B",
    ],
    [{ kind: "record", fields: [], crdt_type: "counter" }, "counter"],
    [{ kind: "bytes" }, "bytes"],
  ];
  for (const [type, expected] of cases) assert.equal(formatType(type), expected);
});
