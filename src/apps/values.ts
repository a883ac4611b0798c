// Values between the agent's schema form and the node's wire form.
// Schema form: 64-bit integers as decimal strings, bytes as hex, variants as `"Name"` / `{Name: x}`.
// Wire form (serde JSON): 64-bit integers as `bigint` (written as exact digits), bytes as number
// arrays, variants externally tagged (`"Name"` for a unit variant, `{"Name": payload}` otherwise).

import {
  type AbiField,
  type AbiManifest,
  type AbiMethod,
  type AbiType,
  formatType,
  isOpaqueCrdt,
  resolveType,
  signatureLine,
  type TypeRef,
} from "./abi_format.ts";

type Json = Record<string, unknown>;

const RANGES = {
  i32: [-(2n ** 31n), 2n ** 31n - 1n],
  u32: [0n, 2n ** 32n - 1n],
  i64: [-(2n ** 63n), 2n ** 63n - 1n],
  u64: [0n, 2n ** 64n - 1n],
} as const;
const INTEGER = /^-?[0-9]+$/;
const HEX = /^(?:0x)?((?:[0-9a-fA-F]{2})*)$/;
const MAX_DEPTH = 128;
const MAX_LISTED = 20;

/** Collected problems for one conversion: a path (`filter.tags[2]`) and what is wrong there. */
interface Issues {
  list: string[];
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = typeof value === "bigint"
    ? value.toString()
    : JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function child(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? (path === "" ? key : `${path}.${key}`)
    : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Record payloads of tuple variants (`MultiTuple(u32, String)`) appear in the ABI as records with
 * fields `field_0`, `field_1`, …; serde writes them as arrays, so those records travel as arrays.
 */
function isTuplePayload(type: AbiType): type is AbiType & { kind: "record"; fields: AbiField[] } {
  return type.kind === "record" && type.fields.length >= 2 &&
    type.fields.every((f, i) => f.name === `field_${i}`);
}

function integer(value: unknown, kind: keyof typeof RANGES, path: string, issues: Issues) {
  let big: bigint | undefined;
  if (typeof value === "bigint") big = value;
  else if (typeof value === "string" && INTEGER.test(value)) big = BigInt(value);
  else if (typeof value === "number" && Number.isInteger(value)) {
    if (!Number.isSafeInteger(value)) {
      issues.list.push(
        `${path}: ${show(value)} is too large to be exact as a JSON number; pass it as a decimal ` +
          `string, e.g. "${BigInt(value)}".`,
      );
      return undefined;
    }
    big = BigInt(value);
  }
  const [min, max] = RANGES[kind];
  if (big === undefined || big < min || big > max) {
    const form = kind.endsWith("64") ? "a decimal string" : "an integer";
    issues.list.push(
      `${path}: expected ${kind} (${form} from ${min} to ${max}), got ${show(value)}.`,
    );
    return undefined;
  }
  return kind.endsWith("64") ? big : Number(big);
}

function bytes(value: unknown, size: number | undefined, path: string, issues: Issues) {
  let out: number[] | undefined;
  if (typeof value === "string") {
    const hex = HEX.exec(value)?.[1];
    if (hex !== undefined) out = hex.match(/../g)?.map((h) => parseInt(h, 16)) ?? [];
  } else if (
    Array.isArray(value) && value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)
  ) {
    out = value as number[];
  }
  const want = size === undefined ? "bytes" : `${size} bytes`;
  if (out === undefined || (size !== undefined && out.length !== size)) {
    issues.list.push(
      `${path}: expected ${want} as a hex string or an array of 0-255, got ${show(value)}.`,
    );
    return undefined;
  }
  return out;
}

function recordToWire(
  manifest: AbiManifest,
  fields: AbiField[],
  value: unknown,
  path: string,
  issues: Issues,
  depth: number,
): Json | undefined {
  if (!isPlainObject(value)) {
    issues.list.push(`${path}: expected an object with ${fieldList(fields)}, got ${show(value)}.`);
    return undefined;
  }
  // Entries, not assignment: a key named "__proto__" must stay an ordinary key.
  const out: Json = Object.fromEntries(fields.map((field) => {
    const item = Object.hasOwn(value, field.name) ? value[field.name] : undefined;
    return [field.name, member(manifest, field, item, child(path, field.name), issues, depth + 1)];
  }));
  const known = new Set(fields.map((f) => f.name));
  for (const key of Object.keys(value)) {
    if (!known.has(key)) {
      issues.list.push(`${child(path, key)}: unknown field; expected ${fieldList(fields)}.`);
    }
  }
  return out;
}

/** One param or record field: omitted or null is fine when nullable (sent as null) or unit. */
function member(
  manifest: AbiManifest,
  field: AbiField,
  given: unknown,
  path: string,
  issues: Issues,
  depth: number,
): unknown {
  if (given === null && field.nullable) return null;
  if (given !== undefined) return toWire(manifest, field.type, given, path, issues, depth);
  if (field.nullable || resolveType(manifest, field.type).kind === "unit") return null;
  issues.list.push(`${path}: missing (expected ${formatType(field.type)}).`);
  return undefined;
}

function fieldList(fields: AbiField[]): string {
  return fields.length === 0 ? "no fields" : `fields ${fields.map((f) => f.name).join(", ")}`;
}

function variantToWire(
  manifest: AbiManifest,
  type: AbiType & { kind: "variant" },
  value: unknown,
  path: string,
  issues: Issues,
  depth: number,
): unknown {
  const names = type.variants.map((v) => v.name).join(", ");
  let name: string | undefined;
  let payload: unknown;
  if (typeof value === "string") name = value;
  else if (isPlainObject(value) && Object.keys(value).length === 1) {
    name = Object.keys(value)[0];
    payload = value[name];
  }
  const variant = type.variants.find((v) => v.name === name);
  if (variant === undefined) {
    issues.list.push(
      `${path}: expected one of ${names} (a name, or an object with one of them as its only key), ` +
        `got ${show(value)}.`,
    );
    return undefined;
  }
  if (variant.payload === undefined) {
    const empty = isPlainObject(payload) && Object.keys(payload).length === 0;
    if (payload !== undefined && payload !== null && !empty) {
      issues.list.push(`${child(path, variant.name)}: ${variant.name} takes no value; pass {}.`);
    }
    return variant.name;
  }
  const at = child(path, variant.name);
  const inner = resolveType(manifest, variant.payload);
  const takesNull = inner.kind === "unit" || inner.kind === "unknown" || isOpaqueCrdt(inner);
  if ((payload === undefined || payload === null) && !takesNull) {
    issues.list.push(`${path}: ${variant.name} needs a value: {"${variant.name}": …}.`);
    return undefined;
  }
  if (!isTuplePayload(inner)) {
    return {
      [variant.name]: toWire(manifest, variant.payload, payload ?? null, at, issues, depth + 1),
    };
  }
  // A tuple variant's payload may come as its record (`{field_0, field_1}`) or as the array.
  const record = Array.isArray(payload) && payload.length === inner.fields.length
    ? Object.fromEntries(inner.fields.map((f, i) => [f.name, payload[i]]))
    : payload;
  const wire = recordToWire(manifest, inner.fields, record, at, issues, depth + 1);
  return wire && { [variant.name]: inner.fields.map((f) => wire[f.name]) };
}

/** Converts one value from schema form to wire form, recording every problem under its path. */
function toWire(
  manifest: AbiManifest,
  ref: TypeRef,
  value: unknown,
  path: string,
  issues: Issues,
  depth: number,
): unknown {
  if (depth > MAX_DEPTH) {
    issues.list.push(`${path}: nested deeper than ${MAX_DEPTH} levels.`);
    return undefined;
  }
  const type = resolveType(manifest, ref);
  const mismatch = (want: string) => {
    issues.list.push(`${path}: expected ${want}, got ${show(value)}.`);
    return undefined;
  };
  switch (type.kind) {
    case "bool":
      return typeof value === "boolean" ? value : mismatch("a boolean");
    case "string":
      return typeof value === "string" ? value : mismatch("a string");
    case "f32":
    case "f64":
      return typeof value === "number" && Number.isFinite(value) ? value : mismatch("a number");
    case "unit":
      return value === null || value === undefined ? null : mismatch("null");
    case "i32":
    case "u32":
    case "i64":
    case "u64":
      return integer(value, type.kind, path, issues);
    case "bytes":
      return bytes(value, type.size, path, issues);
    case "list":
      if (!Array.isArray(value)) return mismatch("an array");
      return value.map((item, i) =>
        toWire(manifest, type.items, item, `${path}[${i}]`, issues, depth + 1)
      );
    case "map":
      if (!isPlainObject(value)) return mismatch("an object");
      return Object.fromEntries(
        Object.entries(value).map((
          [k, v],
        ) => [k, toWire(manifest, type.value, v, child(path, k), issues, depth + 1)]),
      );
    case "tuple":
      if (!Array.isArray(value) || value.length !== type.elements.length) {
        return mismatch(`an array of ${type.elements.length} items`);
      }
      return type.elements.map((e, i) =>
        toWire(manifest, e, value[i], `${path}[${i}]`, issues, depth + 1)
      );
    case "record":
      return isOpaqueCrdt(type)
        ? value
        : recordToWire(manifest, type.fields, value, path, issues, depth);
    case "variant":
      return variantToWire(manifest, type, value, path, issues, depth);
    case "alias":
    case "unknown":
      return value;
  }
}

/**
 * Validates an agent's arguments for `method` and converts them to wire form. Only declared
 * parameters are forwarded (the server's own `app_handle`/`context` never reach the app); a
 * nullable parameter may be omitted or null and is sent as null. 64-bit integers come out as
 * `bigint` so the wire serialiser writes their exact digits. On failure the message names every
 * missing or invalid parameter by path and ends with the method's signature line.
 */
export function toWireArgs(
  manifest: AbiManifest,
  method: AbiMethod,
  args: Record<string, unknown>,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  const issues: Issues = { list: [] };
  // Entries and own properties only: a parameter named "__proto__" or "toString" is an ordinary name.
  const value: Json = Object.fromEntries(method.params.map((param) => {
    const given = Object.hasOwn(args, param.name) ? args[param.name] : undefined;
    return [param.name, member(manifest, param, given, param.name, issues, 0)];
  }));
  if (issues.list.length === 0) return { ok: true, value };
  const shown = issues.list.slice(0, MAX_LISTED).map((line) => `- ${line}`);
  if (issues.list.length > MAX_LISTED) {
    shown.push(`- …and ${issues.list.length - MAX_LISTED} more.`);
  }
  return {
    ok: false,
    message: `Invalid arguments for ${method.name}:\n${shown.join("\n")}\nSignature: ${
      signatureLine(method)
    }`,
  };
}

/** Lowercase hex of byte values already checked to be integers 0–255. */
function hex(bytes: number[]): string {
  return Uint8Array.from(bytes).toHex();
}

/** Makes any leftover `bigint` a decimal string so the value is plain JSON. */
function plain(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(plain);
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

function fromWire(manifest: AbiManifest, ref: TypeRef, value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || value === null || value === undefined) return plain(value ?? null);
  const type = resolveType(manifest, ref);
  const next = depth + 1;
  switch (type.kind) {
    case "i64":
    case "u64":
      return typeof value === "number" && Number.isInteger(value) || typeof value === "bigint"
        ? BigInt(value).toString()
        : plain(value);
    case "i32":
    case "u32":
    case "f32":
    case "f64":
      return typeof value === "bigint" ? Number(value) : plain(value);
    case "bytes":
      return Array.isArray(value) && value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)
        ? hex(value)
        : plain(value);
    case "list":
      return Array.isArray(value)
        ? value.map((v) => fromWire(manifest, type.items, v, next))
        : plain(value);
    case "tuple":
      return Array.isArray(value)
        ? value.map((v, i) =>
          i < type.elements.length ? fromWire(manifest, type.elements[i], v, next) : plain(v)
        )
        : plain(value);
    case "map":
      return isPlainObject(value)
        ? Object.fromEntries(
          Object.entries(value).map(([k, v]) => [k, fromWire(manifest, type.value, v, next)]),
        )
        : plain(value);
    case "record":
      return isPlainObject(value) && !isOpaqueCrdt(type)
        ? recordFromWire(manifest, type.fields, value, next)
        : plain(value);
    case "variant":
      return variantFromWire(manifest, type, value, next);
    default:
      return plain(value);
  }
}

function recordFromWire(
  manifest: AbiManifest,
  fields: AbiField[],
  value: Json,
  depth: number,
): Json {
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      const field = fields.find((f) => f.name === key);
      return [key, field === undefined ? plain(item) : fromWire(manifest, field.type, item, depth)];
    }),
  );
}

function variantFromWire(
  manifest: AbiManifest,
  type: AbiType & { kind: "variant" },
  value: unknown,
  depth: number,
): unknown {
  // A unit case is its name, in results as in arguments, whatever the other cases carry (schema.ts).
  if (typeof value === "string") return value;
  if (!isPlainObject(value) || Object.keys(value).length !== 1) return plain(value);
  const name = Object.keys(value)[0];
  const variant = type.variants.find((v) => v.name === name);
  if (variant === undefined) return plain(value);
  if (variant.payload === undefined) return name;
  const inner = resolveType(manifest, variant.payload);
  const payload = value[name];
  if (isTuplePayload(inner) && Array.isArray(payload)) {
    const record = Object.fromEntries(inner.fields.map((f, i) => [f.name, payload[i]]));
    return { [name]: recordFromWire(manifest, inner.fields, record, depth) };
  }
  return { [name]: fromWire(manifest, variant.payload, payload, depth) };
}

/**
 * Converts a node result for `method` to the form its output schema describes: 64-bit integers
 * (numbers or `bigint`s from the lossless parser) to decimal strings, byte arrays to hex, variants
 * from external tagging to the schema's form. Shapes that do not match pass through unchanged
 * (any stray `bigint` becomes a decimal string), so this never throws on a surprising result.
 */
export function fromWireResult(manifest: AbiManifest, method: AbiMethod, output: unknown): unknown {
  if (method.returns === undefined) return plain(output ?? null);
  return fromWire(manifest, method.returns, output, 0);
}

/**
 * Converts any node value of type `ref` to its agent-facing form (as `fromWireResult` does for a method's
 * result); with no type, only leftover `bigint`s change.
 */
export function fromWireValue(
  manifest: AbiManifest | null,
  ref: TypeRef | undefined,
  value: unknown,
): unknown {
  if (manifest === null || ref === undefined) return plain(value ?? null);
  return fromWire(manifest, ref, value, 0);
}
