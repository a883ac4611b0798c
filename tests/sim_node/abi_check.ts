// Checks method arguments against an ABI the way the app's serde would (messages included), and
// makes plausible default values of a type for methods without a hand-written implementation.

import { type AbiManifest, type AbiMethod, type AbiType, resolveType } from "./abi.ts";

const RANGES: Record<string, [bigint, bigint]> = {
  i32: [-(2n ** 31n), 2n ** 31n - 1n],
  u32: [0n, 2n ** 32n - 1n],
  i64: [-(2n ** 63n), 2n ** 63n - 1n],
  u64: [0n, 2n ** 64n - 1n],
};

function describe(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return `boolean \`${value}\``;
  if (typeof value === "bigint") return `integer \`${value}\``;
  if (typeof value === "number") {
    return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  }
  if (typeof value === "string") return `string ${JSON.stringify(value)}`;
  return Array.isArray(value) ? "a sequence" : "a map";
}

function invalid(value: unknown, expected: string): string {
  return `invalid type: ${describe(value)}, expected ${expected}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A serde-like message when `value` does not fit `type`; null when it does. */
export function checkValue(
  abi: AbiManifest,
  type: AbiType,
  value: unknown,
  depth = 0,
): string | null {
  if (depth > 64) return null;
  const t = resolveType(abi, type);
  const kind = t.kind as string | undefined;
  const inner = (ty: unknown, v: unknown) => checkValue(abi, ty as AbiType, v, depth + 1);
  switch (kind) {
    case "bool":
      return typeof value === "boolean" ? null : invalid(value, "a boolean");
    case "string":
      return typeof value === "string" ? null : invalid(value, "a string");
    case "unit":
      return value === null ? null : invalid(value, "unit");
    case "f32":
    case "f64":
      return typeof value === "number" || typeof value === "bigint" ? null : invalid(value, kind);
    case "i32":
    case "u32":
    case "i64":
    case "u64": {
      const ok = typeof value === "bigint" ||
        (typeof value === "number" && Number.isInteger(value));
      if (!ok) return invalid(value, kind);
      const n = BigInt(value as number | bigint);
      const [min, max] = RANGES[kind];
      return n < min || n > max ? `invalid value: integer \`${n}\`, expected ${kind}` : null;
    }
    case "bytes": {
      if (!Array.isArray(value)) return invalid(value, "an array of bytes");
      const size = t.size as number | undefined;
      if (size !== undefined && value.length !== size) {
        return `invalid length ${value.length}, expected an array of length ${size}`;
      }
      const bad = value.find((b) => !(Number.isInteger(b) && b >= 0 && b <= 255));
      return bad === undefined ? null : `invalid value: ${describe(bad)}, expected u8`;
    }
    case "list": {
      if (!Array.isArray(value)) return invalid(value, "a sequence");
      for (const item of value) {
        const error = inner(t.items, item);
        if (error) return error;
      }
      return null;
    }
    case "map": {
      if (!isObject(value)) return invalid(value, "a map");
      for (const item of Object.values(value)) {
        const error = inner(t.value, item);
        if (error) return error;
      }
      return null;
    }
    case "tuple": {
      const elements = (t.elements as AbiType[]) ?? [];
      if (!Array.isArray(value) || value.length !== elements.length) {
        return invalid(value, `a tuple of size ${elements.length}`);
      }
      for (let i = 0; i < elements.length; i++) {
        const error = inner(elements[i], value[i]);
        if (error) return error;
      }
      return null;
    }
    case "record":
      return checkFields(abi, t, value, depth);
    case "variant":
      return checkVariant(abi, t, value, depth);
    default:
      return null;
  }
}

function checkFields(abi: AbiManifest, t: AbiType, value: unknown, depth: number): string | null {
  if (!isObject(value)) return invalid(value, "a struct");
  const fields = (t.fields as { name: string; type: AbiType; nullable?: boolean }[]) ?? [];
  for (const field of fields) {
    const v = value[field.name];
    if (v === undefined || v === null) {
      if (field.nullable) continue;
      if (v === undefined) return `missing field \`${field.name}\``;
    }
    const error = checkValue(abi, field.type, v, depth + 1);
    if (error) return error;
  }
  return null;
}

function checkVariant(abi: AbiManifest, t: AbiType, value: unknown, depth: number): string | null {
  const variants = (t.variants as { name: string; payload?: AbiType }[]) ?? [];
  const names = variants.map((v) => `\`${v.name}\``).join(", ");
  const name = typeof value === "string"
    ? value
    : isObject(value) && Object.keys(value).length === 1
    ? Object.keys(value)[0]
    : null;
  if (name === null) return invalid(value, "enum");
  const variant = variants.find((v) => v.name === name);
  if (!variant) return `unknown variant \`${name}\`, expected one of ${names}`;
  if (typeof value === "string") {
    return variant.payload ? `invalid type: unit variant, expected ${variant.name}` : null;
  }
  if (!variant.payload) return `invalid type: newtype variant, expected unit variant`;
  return checkValue(abi, variant.payload, (value as Record<string, unknown>)[name], depth + 1);
}

/** Checks a call's arguments object against the method's parameters (missing, null, types). */
export function checkArgs(abi: AbiManifest, method: AbiMethod, args: Record<string, unknown>) {
  for (const param of method.params ?? []) {
    const value = args[param.name];
    if (value === undefined || value === null) {
      if (param.nullable) continue;
      if (value === undefined) return `missing field \`${param.name}\``;
    }
    const error = checkValue(abi, param.type, value);
    if (error) return error;
  }
  return null;
}

/** A plausible value of `type`: zeros, empty strings and collections, the first variant. */
export function defaultValue(abi: AbiManifest, type: AbiType | undefined, depth = 0): unknown {
  if (!type || depth > 16) return null;
  const t = resolveType(abi, type);
  const next = (ty: unknown) => defaultValue(abi, ty as AbiType, depth + 1);
  switch (t.kind) {
    case "bool":
      return false;
    case "i32":
    case "u32":
    case "i64":
    case "u64":
    case "f32":
    case "f64":
      return 0;
    case "string":
      return "";
    case "bytes":
      return new Array((t.size as number | undefined) ?? 0).fill(0);
    case "list":
      return [];
    case "map":
      return {};
    case "tuple":
      return ((t.elements as AbiType[]) ?? []).map(next);
    case "record": {
      const out: Record<string, unknown> = {};
      for (const f of (t.fields as { name: string; type: AbiType; nullable?: boolean }[]) ?? []) {
        out[f.name] = f.nullable ? null : next(f.type);
      }
      return out;
    }
    case "variant": {
      const first = ((t.variants as { name: string; payload?: AbiType }[]) ?? [])[0];
      if (!first) return null;
      return first.payload ? { [first.name]: next(first.payload) } : first.name;
    }
    default:
      return null;
  }
}
