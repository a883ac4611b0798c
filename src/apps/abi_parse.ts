// The edge parser for `wasm-abi/1` manifests: validates untrusted JSON into an `AbiManifest`.
// What it returns is trusted downstream: every `$ref` names a type, no alias loops, and an unknown
// `kind` is kept as `{ kind: "unknown" }` (any JSON value) and listed in `problems`.

import {
  type AbiEvent,
  type AbiField,
  AbiFormatError,
  type AbiManifest,
  type AbiMethod,
  type AbiType,
  type AbiVariant,
  type MethodIntent,
  type ScalarKind,
  type TypeRef,
  UnsupportedAbiVersionError,
} from "./abi_format.ts";
import { stripControls } from "../lib/text.ts";

const SCALARS: ReadonlySet<string> = new Set([
  "bool",
  "i32",
  "i64",
  "u32",
  "u64",
  "f32",
  "f64",
  "string",
  "unit",
]);
const INTENTS: ReadonlySet<string> = new Set(["read_only", "mutating", "unspecified"]);
const VERSION = /^wasm-abi\/([0-9]+)(?:\.([0-9]+))?$/;
const MAX_DEPTH = 64;

type Json = Record<string, unknown>;

/** Per-parse state: problems found so far and `$ref`s to check once every type is known. */
interface ParseState {
  problems: string[];
  refs: { name: string; where: string }[];
}

function show(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? "";
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function object(value: unknown, where: string): Json {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Json;
  throw new AbiFormatError(`${where} must be a JSON object, got ${show(value)}.`);
}

function array(value: unknown, where: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw new AbiFormatError(`${where} must be a JSON array, got ${show(value)}.`);
}

/**
 * Names in an ABI (methods, parameters, fields, variants, events, types) are identifiers, as the toolchain
 * derives them from Rust: they reach tool names, schemas and descriptions, so control characters, markup or
 * 50,000-character names from a hostile ABI are refused at the edge.
 */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function name(value: unknown, where: string): string {
  if (typeof value === "string" && IDENTIFIER.test(value)) return value;
  if (typeof value === "string" && value !== "") {
    throw new AbiFormatError(
      `${where} has the name ${
        show(value)
      }, which is not an identifier (letters, digits and _, at most 128).`,
    );
  }
  throw new AbiFormatError(`${where} needs a non-empty string "name", got ${show(value)}.`);
}

/** An optional string key; a value of another type is reported and dropped, never fatal. */
function optString(obj: Json, key: string, where: string, state: ParseState): string | undefined {
  const value = obj[key];
  return typeof value === "string" ? value : dropped(value, key, "string", where, state);
}

/** The longest doc kept (a method's doc reaches its tool's description, a param's its schema). */
export const MAX_DOC_LENGTH = 2_000;

/** An optional doc: the app author's text, kept without control characters and at most MAX_DOC_LENGTH long. */
function docString(obj: Json, key: string, where: string, state: ParseState): string | undefined {
  const value = optString(obj, key, where, state);
  if (value === undefined) return undefined;
  const clean = stripControls(value);
  return clean.length > MAX_DOC_LENGTH ? `${clean.slice(0, MAX_DOC_LENGTH - 1)}…` : clean;
}

/** An optional boolean key; a value of another type is reported and dropped, never fatal. */
function optBool(obj: Json, key: string, where: string, state: ParseState): boolean | undefined {
  const value = obj[key];
  return typeof value === "boolean" ? value : dropped(value, key, "boolean", where, state);
}

function dropped(value: unknown, key: string, type: string, where: string, state: ParseState) {
  if (value === undefined || value === null) return undefined;
  state.problems.push(`${where}: "${key}" should be a ${type}, got ${show(value)}; ignored.`);
  return undefined;
}

function unique(names: string[], what: string, where: string): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) throw new AbiFormatError(`${where} declares ${what} "${n}" twice.`);
    seen.add(n);
  }
}

function parseFields(
  value: unknown,
  where: string,
  state: ParseState,
  depth: number,
  what: "field" | "param" = "field",
): AbiField[] {
  const fields = array(value, `${where} > ${what}s`).map((raw, i) => {
    const obj = object(raw, `${where} > ${what}s[${i}]`);
    const fieldName = name(obj.name, `${where} > ${what}s[${i}]`);
    const at = `${where} > ${what} "${fieldName}"`;
    const field: AbiField = { name: fieldName, type: parseType(obj.type, at, state, depth + 1) };
    if (optBool(obj, "nullable", at, state)) field.nullable = true;
    const doc = docString(obj, "doc", at, state);
    if (doc !== undefined) field.doc = doc;
    return field;
  });
  unique(fields.map((f) => f.name), what, where);
  return fields;
}

function parseVariants(value: unknown, where: string, state: ParseState, depth: number) {
  const variants = array(value, `${where} > variants`).map((raw, i) => {
    const obj = object(raw, `${where} > variants[${i}]`);
    const variant: AbiVariant = { name: name(obj.name, `${where} > variants[${i}]`) };
    const at = `${where} > variant "${variant.name}"`;
    const code = optString(obj, "code", at, state);
    if (code !== undefined) variant.code = code;
    if (obj.payload !== undefined && obj.payload !== null) {
      variant.payload = parseType(obj.payload, `${at} payload`, state, depth + 1);
    }
    const doc = docString(obj, "doc", at, state);
    if (doc !== undefined) variant.doc = doc;
    return variant;
  });
  unique(variants.map((v) => v.name), "variant", where);
  return variants;
}

/** Parses one type reference; `where` names its place for messages. */
function parseType(value: unknown, where: string, state: ParseState, depth: number): TypeRef {
  if (depth > MAX_DEPTH) {
    throw new AbiFormatError(`${where} nests deeper than ${MAX_DEPTH} levels.`);
  }
  // The compact form `"string"` (seen for map keys) stands for `{ "kind": "string" }`.
  if (typeof value === "string" && SCALARS.has(value)) return { kind: value as ScalarKind };
  const obj = object(value, where);
  if (obj.$ref !== undefined) {
    if (typeof obj.$ref !== "string" || obj.$ref === "") {
      throw new AbiFormatError(`${where} has a "$ref" that is not a type name: ${show(obj.$ref)}.`);
    }
    state.refs.push({ name: obj.$ref, where });
    return { $ref: obj.$ref };
  }
  const kind = obj.kind;
  if (typeof kind !== "string") {
    throw new AbiFormatError(`${where} needs a "$ref" or a string "kind", got ${show(value)}.`);
  }
  const next = depth + 1;
  let type: AbiType;
  if (SCALARS.has(kind)) {
    type = { kind: kind as ScalarKind };
  } else if (kind === "bytes") {
    type = { kind };
    const size = obj.size;
    if (size !== undefined && size !== null) {
      if (!Number.isSafeInteger(size) || (size as number) < 0) {
        throw new AbiFormatError(
          `${where}: bytes "size" must be a whole number, got ${show(size)}.`,
        );
      }
      type.size = size as number;
    }
    const encoding = optString(obj, "encoding", where, state);
    if (encoding !== undefined) type.encoding = encoding;
  } else if (kind === "list") {
    type = { kind, items: parseType(obj.items, `${where} > items`, state, next) };
  } else if (kind === "map") {
    const key = parseType(obj.key, `${where} > key`, state, next);
    type = { kind, key, value: parseType(obj.value, `${where} > value`, state, next) };
  } else if (kind === "tuple") {
    const elements = array(obj.elements, `${where} > elements`);
    type = {
      kind,
      elements: elements.map((e, i) => parseType(e, `${where} > elements[${i}]`, state, next)),
    };
  } else if (kind === "record") {
    type = { kind, fields: parseFields(obj.fields ?? [], where, state, depth) };
  } else if (kind === "variant") {
    type = { kind, variants: parseVariants(obj.variants, where, state, depth) };
  } else if (kind === "alias") {
    type = { kind, target: parseType(obj.target, `${where} > target`, state, next) };
  } else {
    state.problems.push(`${where}: unknown kind ${show(kind)}; it accepts any JSON value.`);
    return { kind: "unknown", unknown_kind: kind };
  }
  if (type.kind === "record" || type.kind === "variant" || type.kind === "alias") {
    const doc = docString(obj, "doc", where, state);
    if (doc !== undefined) type.doc = doc;
  }
  const crdt = optString(obj, "crdt_type", where, state);
  if (crdt !== undefined) type.crdt_type = crdt;
  if (obj.inner_type !== undefined && obj.inner_type !== null) {
    type.inner_type = parseType(obj.inner_type, `${where} > inner_type`, state, next);
  }
  return type;
}

function parseMethod(raw: unknown, index: number, state: ParseState): AbiMethod {
  const obj = object(raw, `methods[${index}]`);
  const where = `method "${name(obj.name, `methods[${index}]`)}"`;
  const method: AbiMethod = {
    name: obj.name as string,
    params: parseFields(obj.params, where, state, 0, "param"),
  };
  for (const key of ["doc", "returns_doc"] as const) {
    const value = docString(obj, key, where, state);
    if (value !== undefined) method[key] = value;
  }
  const callers = optString(obj, "xcall_callers", where, state);
  if (callers !== undefined) method.xcall_callers = callers;
  for (const key of ["returns_nullable", "destructive", "idempotent", "xcall_callable"] as const) {
    const value = optBool(obj, key, where, state);
    if (value !== undefined) method[key] = value;
  }
  if (obj.returns !== undefined && obj.returns !== null) {
    method.returns = parseType(obj.returns, `${where} > returns`, state, 0);
  }
  const intent = optString(obj, "intent", where, state);
  if (intent !== undefined && INTENTS.has(intent)) method.intent = intent as MethodIntent;
  else if (intent !== undefined) {
    state.problems.push(`${where}: unknown intent ${show(intent)}; treated as "unspecified".`);
    method.intent = "unspecified";
  }
  if (Array.isArray(obj.errors)) {
    method.errors = obj.errors.flatMap((e, i) => {
      if (typeof e !== "object" || e === null || typeof (e as Json).code !== "string") return [];
      const payload = (e as Json).payload;
      const at = `${where} > errors[${i}] payload`;
      return [{
        code: (e as Json).code as string,
        ...(payload === undefined || payload === null ? {} : {
          payload: parseType(payload, at, state, 0),
        }),
      }];
    });
  }
  return method;
}

function checkVersion(value: unknown): string {
  const match = typeof value === "string" ? VERSION.exec(value) : null;
  if (match === null) {
    const found = value === undefined ? "is missing" : `is ${show(value)}`;
    throw new AbiFormatError(
      `Not a wasm-abi manifest: "schema_version" ${found}, expected "wasm-abi/1".`,
    );
  }
  if (match[1] !== "1") {
    throw new UnsupportedAbiVersionError(
      `ABI schema_version ${show(value)} is not supported: this mero-mcp reads wasm-abi/1 ` +
        `(and 1.N). Upgrade mero-mcp to use this app.`,
    );
  }
  return value as string;
}

/** Rejects `$ref`/alias/CRDT-inner chains that loop without reaching a concrete type. */
function checkLoops(types: Record<string, TypeRef>): void {
  // Linear: each type's chain is walked once; a type reached from a finished chain is known to end.
  const settled = new Set<string>();
  for (const start of Object.keys(types)) {
    if (settled.has(start)) continue;
    const path: string[] = [start];
    const onPath = new Set(path);
    let current: TypeRef = types[start];
    while (true) {
      if ("$ref" in current) {
        const next = current.$ref;
        if (settled.has(next)) break;
        if (onPath.has(next)) {
          throw new AbiFormatError(
            `Types ${[...path, next].join(" -> ")} loop without a concrete type.`,
          );
        }
        path.push(next);
        onPath.add(next);
        current = types[next];
      } else if (current.kind !== "unknown" && current.inner_type !== undefined) {
        current = current.inner_type;
      } else if (current.kind === "alias") current = current.target;
      else break;
    }
    for (const name of path) settled.add(name);
  }
}

/**
 * Validates a `wasm-abi/1` manifest (any `wasm-abi/1.N`) at the edge and returns it typed.
 * Throws `AbiFormatError` for another major version, a wrong shape or a `$ref` to a missing type;
 * unknown keys are dropped, and unknown kinds or intents land in `problems` instead of failing.
 */
export function parseAbiManifest(json: unknown): AbiManifest {
  const root = object(json, "The ABI manifest");
  const state: ParseState = { problems: [], refs: [] };
  const schemaVersion = checkVersion(root.schema_version);
  const types: Record<string, TypeRef> = {};
  for (const [typeName, raw] of Object.entries(object(root.types ?? {}, `"types"`))) {
    if (!IDENTIFIER.test(typeName)) {
      throw new AbiFormatError(
        `The type name ${
          show(typeName)
        } is not an identifier (letters, digits and _, at most 128).`,
      );
    }
    // defineProperty, so a type named "__proto__" is an ordinary entry.
    Object.defineProperty(types, typeName, {
      value: parseType(raw, `type "${typeName}"`, state, 0),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const methods = array(root.methods, `"methods"`).map((m, i) => parseMethod(m, i, state));
  unique(methods.map((m) => m.name), "method", "The manifest");
  const events = array(root.events ?? [], `"events"`).map((raw, i) => {
    const obj = object(raw, `events[${i}]`);
    const event: AbiEvent = { name: name(obj.name, `events[${i}]`) };
    if (obj.payload !== undefined && obj.payload !== null) {
      event.payload = parseType(obj.payload, `event "${event.name}" payload`, state, 0);
    }
    return event;
  });
  for (const ref of state.refs) {
    if (!Object.hasOwn(types, ref.name)) {
      const known = Object.keys(types).join(", ") || "none";
      throw new AbiFormatError(
        `${ref.where} refers to type "${ref.name}", which the manifest does not define ` +
          `(defined: ${known}).`,
      );
    }
  }
  checkLoops(types);
  const manifest: AbiManifest = {
    schema_version: schemaVersion,
    types,
    methods,
    events,
    problems: state.problems,
  };
  if (typeof root.state_root === "string") {
    manifest.state_root = root.state_root;
    if (!Object.hasOwn(types, root.state_root)) {
      state.problems.push(`"state_root" names type "${root.state_root}", which is not defined.`);
    }
  }
  if (Number.isSafeInteger(root.state_version)) {
    manifest.state_version = root.state_version as number;
  }
  if (Array.isArray(root.migrations)) {
    manifest.migrations = root.migrations.flatMap((m) =>
      typeof m === "object" && m !== null && typeof (m as Json).method === "string" &&
        Number.isSafeInteger((m as Json).fromVersion)
        ? [{ method: (m as Json).method as string, fromVersion: (m as Json).fromVersion as number }]
        : []
    );
  }
  return manifest;
}
