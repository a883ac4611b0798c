// bignum: an ABI written here around values a double cannot hold: u64/i64 above 2^53 (echoed with
// exact digits), bytes (arrays of numbers), variants with payloads, a record with a nullable field.

import { fail } from "../guest.ts";
import { sha256 } from "../ids.ts";
import type { MethodImpl } from "../types.ts";
import { type SampleApp, samplePackage } from "./sample.ts";

const u64 = { kind: "u64" };
const i64 = { kind: "i64" };
const str = { kind: "string" };
const bytes = { kind: "bytes" };
const unit = { kind: "unit" };
const ro = "read_only";

const param = (name: string, type: unknown, nullable?: boolean) =>
  nullable ? { name, type, nullable } : { name, type };

/** The bignum ABI (exported so tests can compare against what the route serves). */
export const bignumAbi = {
  schema_version: "wasm-abi/1",
  types: {
    Hash32: { kind: "alias", target: { kind: "bytes", size: 32 } },
    Circle: { kind: "record", fields: [param("radius", u64)] },
    Shape: {
      kind: "variant",
      variants: [
        { name: "Empty" },
        { name: "Circle", payload: { $ref: "Circle" } },
        { name: "Label", payload: str },
      ],
    },
    Color: { kind: "variant", variants: [{ name: "Red" }, { name: "Green" }, { name: "Blue" }] },
    Account: {
      kind: "record",
      fields: [
        param("owner", str),
        param("balance", u64),
        param("delta", i64),
        param("nickname", str, true),
        param("tags", { kind: "list", items: str }),
      ],
    },
  },
  methods: [
    { name: "init", params: [param("label", str, true)], returns: unit },
    { name: "echo_u64", params: [param("x", u64)], returns: u64, intent: ro },
    { name: "echo_i64", params: [param("x", i64)], returns: i64, intent: ro },
    { name: "max_u64", params: [], returns: u64, intent: ro },
    { name: "min_i64", params: [], returns: i64, intent: ro },
    { name: "add_u64", params: [param("a", u64), param("b", u64)], returns: u64, intent: ro },
    {
      name: "sum_u64",
      params: [param("xs", { kind: "list", items: u64 })],
      returns: u64,
      intent: ro,
    },
    { name: "echo_bytes", params: [param("b", bytes)], returns: bytes, intent: ro },
    { name: "sha256", params: [param("b", bytes)], returns: { $ref: "Hash32" }, intent: ro },
    {
      name: "echo_hash",
      params: [param("h", { $ref: "Hash32" })],
      returns: { $ref: "Hash32" },
      intent: ro,
    },
    {
      name: "echo_shape",
      params: [param("s", { $ref: "Shape" })],
      returns: { $ref: "Shape" },
      intent: ro,
    },
    {
      name: "echo_color",
      params: [param("c", { $ref: "Color" })],
      returns: { $ref: "Color" },
      intent: ro,
    },
    {
      name: "echo_account",
      params: [param("a", { $ref: "Account" })],
      returns: { $ref: "Account" },
      intent: ro,
    },
    {
      name: "put_account",
      params: [param("a", { $ref: "Account" })],
      returns: unit,
      intent: "mutating",
    },
    {
      name: "get_account",
      params: [param("owner", str)],
      returns: { $ref: "Account" },
      returns_nullable: true,
      intent: ro,
    },
    {
      name: "echo_pair",
      params: [param("t", { kind: "tuple", elements: [str, u64] })],
      returns: { kind: "tuple", elements: [str, u64] },
      intent: ro,
    },
  ],
  events: [],
};

const MAX_U64 = 2n ** 64n - 1n;
const big = (value: unknown) => BigInt(value as number | bigint);
/** Writes an integer as a JS number when that is exact, else as bigint (exact on the wire). */
const exact = (n: bigint) => n >= -(2n ** 53n) && n <= 2n ** 53n ? Number(n) : n;

function checked(sum: bigint): number | bigint {
  if (sum > MAX_U64) fail({ kind: "Overflow", data: sum.toString() });
  return exact(sum);
}

const echo = (name: string): MethodImpl => (args) => args[name];

const methods: Record<string, MethodImpl> = {
  init: ({ label }, env) => {
    if (label === "") fail("label must not be empty when given");
    env.state.label = label ?? null;
    env.state.accounts = new Map();
    return null;
  },
  echo_u64: echo("x"),
  echo_i64: echo("x"),
  max_u64: () => MAX_U64,
  min_i64: () => -(2n ** 63n),
  add_u64: ({ a, b }) => checked(big(a) + big(b)),
  sum_u64: ({ xs }) => checked((xs as unknown[]).reduce<bigint>((n, x) => n + big(x), 0n)),
  echo_bytes: echo("b"),
  sha256: ({ b }) => [...sha256(new Uint8Array(b as number[]))],
  echo_hash: echo("h"),
  echo_shape: echo("s"),
  echo_color: echo("c"),
  echo_account: ({ a }) => ({ nickname: null, ...(a as Record<string, unknown>) }),
  put_account: ({ a }, env) => {
    const account = a as Record<string, unknown>;
    const accounts = (env.state.accounts ??= new Map()) as Map<string, unknown>;
    accounts.set(account.owner as string, { nickname: null, ...account });
    return null;
  },
  get_account: ({ owner }, env) =>
    ((env.state.accounts as Map<string, unknown> | undefined)?.get(owner as string)) ?? null,
  echo_pair: echo("t"),
};

/** The bignum sample app. */
export const bignum: SampleApp = {
  name: "bignum",
  versions: ["0.1.0"],
  build: ({ version }) => ({
    package: samplePackage("bignum"),
    version,
    name: "Big Numbers",
    description: "Echoes 64-bit integers, bytes and variants exactly.",
    abi: bignumAbi,
    methods,
  }),
};
