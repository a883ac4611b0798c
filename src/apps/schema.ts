// ABI types → JSON Schema, in one pass over the manifest's type graph and in the dialect real MCP clients accept
//: object roots without composition, named types inlined, `$defs`/`$ref` only for recursive types,
// 64-bit integers as decimal strings, tuples as `prefixItems` bounded by `minItems`/`maxItems` (no boolean
// subschemas), closed input objects (`additionalProperties: false`), no schema whose only type is null.
// values.ts walks the same ABI types to check and convert arguments, so what is advertised and what is accepted
// follow one reading of the ABI. Schemas are built once per manifest (cached by its identity) and handed out as
// fresh copies.

import {
  type AbiManifest,
  type AbiMethod,
  type AbiType,
  isOpaqueCrdt,
  lookupType,
  returnsNothing,
  type TypeRef,
} from "./abi_format.ts";

type Json = Record<string, unknown>;
type Direction = "input" | "output";

/** What one direction of one manifest needs while building. */
interface BuildContext {
  manifest: AbiManifest;
  direction: Direction;
  recursive: ReadonlySet<string>;
  /** Non-recursive named types, built once per direction (never mutated: descriptions go on copies). */
  named: Map<string, Json>;
  /** Recursive types referenced so far, to emit under `$defs`. */
  defs: Set<string>;
}

interface ManifestSchemas {
  recursive: ReadonlySet<string> | null;
  methods: Map<string, { input: Json; output: Json | undefined }>;
}

const cache = new WeakMap<AbiManifest, ManifestSchemas>();

const I32 = { min: -2147483648, max: 2147483647 };
const U32 = { min: 0, max: 4294967295 };
/** Decimal-string patterns for 64-bit integers (the handler also accepts JSON integers). */
export const I64_PATTERN = "^-?[0-9]+$";
export const U64_PATTERN = "^[0-9]+$";

/** The regular expression a hex string for `size` bytes (any length when absent) must match. */
function hexPattern(size: number | undefined): string {
  return size === undefined ? "^(?:[0-9a-fA-F]{2})*$" : `^[0-9a-fA-F]{${2 * size}}$`;
}

/** Names referenced anywhere inside a type (through fields, items, payloads, targets, …). */
function refsOf(type: TypeRef, into: Set<string>): Set<string> {
  if ("$ref" in type) into.add(type.$ref);
  else if (type.kind !== "unknown") {
    if (type.inner_type !== undefined) refsOf(type.inner_type, into);
    if (type.kind === "list") refsOf(type.items, into);
    else if (type.kind === "map") refsOf(type.key, refsOf(type.value, into));
    else if (type.kind === "tuple") type.elements.forEach((e) => refsOf(e, into));
    else if (type.kind === "record") type.fields.forEach((f) => refsOf(f.type, into));
    else if (type.kind === "variant") {
      type.variants.forEach((v) => v.payload && refsOf(v.payload, into));
    } else if (type.kind === "alias") refsOf(type.target, into);
  }
  return into;
}

/** The named types that can reach themselves: only these get `$defs` entries. */
export function recursiveTypes(manifest: AbiManifest): ReadonlySet<string> {
  const edges = new Map<string, Set<string>>();
  for (const [name, type] of Object.entries(manifest.types)) {
    edges.set(name, refsOf(type, new Set()));
  }
  const recursive = new Set<string>();
  for (const start of edges.keys()) {
    const stack = [...edges.get(start)!];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (name === start) {
        recursive.add(start);
        break;
      }
      if (seen.has(name)) continue;
      seen.add(name);
      stack.push(...(edges.get(name) ?? []));
    }
  }
  return recursive;
}

/** A copy of `schema` with `doc` as its description (the latest doc wins: a field's over its type's). */
function describe(schema: Json, doc: string | undefined): Json {
  return doc === undefined || doc === "" ? schema : { ...schema, description: doc };
}

/** A named type: a `$ref` for a recursive one (its definition goes under `$defs`), else its schema inlined. */
function named(ctx: BuildContext, name: string): Json {
  if (ctx.recursive.has(name)) {
    ctx.defs.add(name);
    return { $ref: `#/$defs/${name}` };
  }
  let schema = ctx.named.get(name);
  if (schema === undefined) {
    schema = schemaFor(ctx, lookupType(ctx.manifest, name)!);
    ctx.named.set(name, schema);
  }
  return schema;
}

/** An object of `entries`; closed in arguments, open in results (a newer app may add fields). */
function object(ctx: BuildContext, entries: [string, Json, boolean][]): Json {
  const required = entries.filter(([, , optional]) => !optional).map(([name]) => name);
  return {
    type: "object",
    // Entries, not assignment: a key named "__proto__" must stay an ordinary key.
    properties: Object.fromEntries(entries.map(([name, schema]) => [name, schema])),
    ...(required.length > 0 ? { required } : {}),
    ...(ctx.direction === "input" ? { additionalProperties: false } : {}),
  };
}

function orNull(schema: Json): Json {
  return { anyOf: [schema, { type: "null" }] };
}

function recordSchema(ctx: BuildContext, type: AbiType & { kind: "record" }): Json {
  if (isOpaqueCrdt(type)) return {};
  return object(
    ctx,
    type.fields.map((field): [string, Json, boolean] => {
      let schema = schemaFor(ctx, field.type);
      if (field.nullable && ctx.direction === "output") schema = orNull(schema);
      // A recursive type's `$ref` keeps no doc beside it (some validators ignore siblings of `$ref`).
      if (!("$ref" in schema)) schema = describe(schema, field.doc);
      return [field.name, schema, field.nullable === true];
    }),
  );
}

/**
 * A variant: a string enum when every case is a unit; otherwise one object with a single key (serde's external
 * tagging). No `{"type":"null"}`-only schema is advertised (Gemini refuses them). Arguments take a unit case as
 * an empty object (`{"Empty": {}}`), since LangChain's adapter keeps only one branch of an `anyOf`; the name
 * alone is accepted too. Results name a unit case by a string, so they are `anyOf [names, object]`.
 */
function variantSchema(ctx: BuildContext, type: AbiType & { kind: "variant" }): Json {
  const names = type.variants.map((v) => v.name);
  if (names.length === 0) return { not: {} };
  if (type.variants.every((v) => v.payload === undefined)) return { type: "string", enum: names };
  const units = ctx.direction === "output"
    ? type.variants.filter((v) => v.payload === undefined)
    : [];
  const cased = type.variants.filter((v) => !units.includes(v));
  const tagged = {
    ...object(
      ctx,
      cased.map((v): [string, Json, boolean] => {
        const payload = v.payload === undefined
          ? { type: "object", properties: {}, additionalProperties: false }
          : schemaFor(ctx, v.payload);
        return [v.name, "$ref" in payload ? payload : describe(payload, v.doc), true];
      }),
    ),
    minProperties: 1,
    maxProperties: 1,
  };
  if (units.length === 0) return tagged;
  return { anyOf: [{ type: "string", enum: units.map((v) => v.name) }, tagged] };
}

/** The schema of one type reference, in the context's direction. */
function schemaFor(ctx: BuildContext, ref: TypeRef): Json {
  if ("$ref" in ref) return named(ctx, ref.$ref);
  if (ref.kind !== "unknown" && ref.inner_type !== undefined) return schemaFor(ctx, ref.inner_type);
  switch (ref.kind) {
    case "bool":
      return { type: "boolean" };
    case "string":
      return { type: "string" };
    case "f32":
    case "f64":
      return { type: "number" };
    case "unit":
      return { type: "null" };
    case "i32":
      return { type: "integer", minimum: I32.min, maximum: I32.max };
    case "u32":
      return { type: "integer", minimum: U32.min, maximum: U32.max };
    case "i64":
      return { type: "string", pattern: I64_PATTERN };
    case "u64":
      return { type: "string", pattern: U64_PATTERN };
    case "bytes":
      return {
        type: "string",
        pattern: hexPattern(ref.size),
        description: ref.size === undefined
          ? "Bytes as a hex string."
          : `${ref.size} bytes as a hex string.`,
      };
    case "list":
      return { type: "array", items: schemaFor(ctx, ref.items) };
    case "map":
      return { type: "object", additionalProperties: schemaFor(ctx, ref.value) };
    case "tuple": {
      const prefixItems = ref.elements.map((e) => schemaFor(ctx, e));
      return {
        type: "array",
        prefixItems,
        minItems: prefixItems.length,
        maxItems: prefixItems.length,
      };
    }
    case "record":
      return describe(recordSchema(ctx, ref), ref.doc);
    case "variant":
      return describe(variantSchema(ctx, ref), ref.doc);
    case "alias":
      return describe(schemaFor(ctx, ref.target), ref.doc);
    case "unknown":
      return {};
  }
}

/** The root with the `$defs` its recursive references need (each definition may reach further ones). */
function withDefs(ctx: BuildContext, root: Json): Json {
  const defs: Record<string, Json> = {};
  for (const name of ctx.defs) {
    if (!(name in defs)) defs[name] = schemaFor(ctx, lookupType(ctx.manifest, name)!);
  }
  // A Set iterated while it grows visits what is added: every definition reached is built once.
  if (Object.keys(defs).length === 0) return root;
  // A recursive type at the root would be a bare `$ref`: inline its definition instead.
  if (typeof root.$ref === "string") {
    const { $ref, ...rest } = root;
    return { ...defs[$ref.replace("#/$defs/", "")], ...rest, $defs: defs };
  }
  return { ...root, $defs: defs };
}

function context(manifest: AbiManifest, recursive: ReadonlySet<string>, direction: Direction) {
  return { manifest, direction, recursive, named: new Map(), defs: new Set<string>() };
}

function buildInput(ctx: BuildContext, method: AbiMethod): Json {
  const root = object(
    ctx,
    method.params.map((param): [string, Json, boolean] => {
      const schema = schemaFor(ctx, param.type);
      return [
        param.name,
        "$ref" in schema ? schema : describe(schema, param.doc),
        param.nullable === true,
      ];
    }),
  );
  // The root is closed too once the server adds app_handle and context (tools/generated.ts), which refuses any
  // other key before the call is prepared.
  return withDefs(ctx, root);
}

function buildOutput(ctx: BuildContext, method: AbiMethod): Json | undefined {
  if (method.returns === undefined || returnsNothing(ctx.manifest, method)) return undefined;
  let json = withDefs(ctx, schemaFor(ctx, method.returns));
  // Non-object roots also admit null: real ABIs declare `Option<T>` returns as plain `T`
  // (kv-store `get`), and a non-object root is wrapped by the SDK for 2025 clients anyway.
  const acceptsNull = Object.keys(json).every((k) => k === "description") ||
    (Array.isArray(json.anyOf) && json.anyOf.some((s) => (s as Json).type === "null"));
  if (!acceptsNull && (method.returns_nullable || json.type !== "object")) {
    const { $defs, description, ...rest } = json;
    json = {
      anyOf: [rest, { type: "null" }],
      ...(description === undefined ? {} : { description }),
      ...($defs === undefined ? {} : { $defs }),
    };
  }
  if (method.returns_doc) json.description = method.returns_doc;
  return json;
}

/** The most nodes a method's schemas may expand to (types inlined): far above any real app's. */
export const SCHEMA_NODE_BUDGET = 20_000;
/** The deepest a method's types may nest. */
export const SCHEMA_DEPTH_LIMIT = 128;

/**
 * Refuses a method whose schemas would be too big to build: types shared at every level double in size when
 * inlined (a 3 KB ABI reached gigabytes), and a long chain nests past any stack. Sizes are counted per named
 * type once, capped at the budget, so the check itself stays linear.
 */
function checkBudget(manifest: AbiManifest, method: AbiMethod): void {
  const recursive = recursiveTypes(manifest);
  const sizes = new Map<string, number>();
  const size = (type: TypeRef, depth: number): number => {
    if (depth > SCHEMA_DEPTH_LIMIT) {
      throw new Error(
        `the types of method "${method.name}" nest more than ${SCHEMA_DEPTH_LIMIT} levels deep`,
      );
    }
    if ("$ref" in type) {
      if (recursive.has(type.$ref)) return 1; // a $defs entry, counted once below
      const known = sizes.get(type.$ref);
      if (known !== undefined) return known;
      const n = size(manifest.types[type.$ref], depth + 1);
      sizes.set(type.$ref, n);
      return n;
    }
    let n = 1;
    const add = (inner: TypeRef) =>
      n = Math.min(SCHEMA_NODE_BUDGET + 1, n + size(inner, depth + 1));
    if (type.kind !== "unknown") {
      if (type.inner_type !== undefined) add(type.inner_type);
      if (type.kind === "list") add(type.items);
      else if (type.kind === "map") [type.key, type.value].forEach(add);
      else if (type.kind === "tuple") type.elements.forEach(add);
      else if (type.kind === "record") type.fields.forEach((f) => add(f.type));
      else if (type.kind === "variant") type.variants.forEach((v) => v.payload && add(v.payload));
      else if (type.kind === "alias") add(type.target);
    }
    return n;
  };
  let total = 0;
  for (
    const type of [...method.params.map((p) => p.type), ...(method.returns ? [method.returns] : [])]
  ) {
    total += size(type, 0);
  }
  for (const name of recursive) total += size(manifest.types[name], 0);
  if (total > SCHEMA_NODE_BUDGET) {
    throw new Error(
      `the schemas of method "${method.name}" would expand to more than ${SCHEMA_NODE_BUDGET} nodes`,
    );
  }
}

function built(manifest: AbiManifest, method: AbiMethod) {
  let schemas = cache.get(manifest);
  if (schemas === undefined) {
    schemas = { recursive: null, methods: new Map() };
    cache.set(manifest, schemas);
  }
  let entry = schemas.methods.get(method.name);
  if (entry === undefined) {
    checkBudget(manifest, method);
    schemas.recursive ??= recursiveTypes(manifest);
    entry = {
      input: buildInput(context(manifest, schemas.recursive, "input"), method),
      output: buildOutput(context(manifest, schemas.recursive, "output"), method),
    };
    schemas.methods.set(method.name, entry);
  }
  return entry;
}

/**
 * The JSON Schema (draft 2020-12) of a method's parameters, for a tool's `inputSchema`: an object
 * root without composition, nullable parameters optional, each `doc` as a `description`. The
 * result is a fresh copy; add the server's own properties (`app_handle`, `context`) to it freely.
 */
export function methodInputSchema(manifest: AbiManifest, method: AbiMethod): { json: Json } {
  return { json: structuredClone(built(manifest, method).input) };
}

/**
 * The JSON Schema of a method's result in the form `fromWireResult` produces, or undefined when
 * it returns nothing. Non-object roots (and nullable returns) are `anyOf [T, null]`; the SDK wraps
 * non-object roots for 2025-era clients, so this is never wrapped here. A fresh copy each call.
 */
export function methodOutputSchema(
  manifest: AbiManifest,
  method: AbiMethod,
): Json | undefined {
  const output = built(manifest, method).output;
  return output === undefined ? undefined : structuredClone(output);
}
