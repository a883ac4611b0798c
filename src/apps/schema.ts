// ABI types → zod → JSON Schema, in the dialect real MCP clients accept (apps.md §4): object roots,
// named types inlined, `$defs`/`$ref` only for recursive types, 64-bit integers as decimal strings.
// Schemas are built once per manifest (cached by its identity) and handed out as fresh copies.

import { z } from "zod";
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
type Meta = Record<string, unknown>;

/** Everything one direction of one manifest needs while building zod schemas. */
interface BuildContext {
  manifest: AbiManifest;
  direction: Direction;
  recursive: ReadonlySet<string>;
  registry: z.core.$ZodRegistry<Meta>;
  /** Schemas of named types; metadata is only ever added to copies, so sharing them is safe. */
  named: Map<string, z.ZodType>;
}

interface ManifestSchemas {
  /** The zod build state; dropped once every method's JSON Schema exists (it is only needed to build them). */
  contexts: { input: BuildContext; output: BuildContext } | null;
  methods: Map<string, { input: Json; output: Json | undefined }>;
}

const cache = new WeakMap<AbiManifest, ManifestSchemas>();

const I32 = { min: -2147483648, max: 2147483647 };
const U32 = { min: 0, max: 4294967295 };
/** Decimal-string patterns for 64-bit integers (the handler also accepts JSON integers). */
export const I64_PATTERN = "^-?[0-9]+$";
export const U64_PATTERN = "^[0-9]+$";

/** The regular expression a hex string for `size` bytes (any length when absent) must match. */
export function hexPattern(size: number | undefined): string {
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

/** A copy of `schema` with extra metadata (descriptions, bounds) that keeps what it had. */
function withMeta(ctx: BuildContext, schema: z.ZodType, meta: Meta): z.ZodType {
  const { id: _id, ...kept } = ctx.registry.get(schema) ?? {};
  const copy = schema.clone();
  ctx.registry.add(copy, { ...kept, ...meta });
  return copy;
}

function describe(ctx: BuildContext, schema: z.ZodType, doc: string | undefined): z.ZodType {
  if (doc === undefined || doc === "") return schema;
  // A recursive type's lazy schema is shared, never copied: a copy is a second lazy that builds the type
  // again, whose field builds another copy, and so on until the stack overflows (a documented self-reference
  // did that). Such a field keeps the shared `$ref` and goes without its doc.
  if (ctx.registry.get(schema)?.id !== undefined) return schema;
  return withMeta(ctx, schema, { description: doc });
}

/** A named type, built once per direction; recursive ones are lazy and get a `$defs` id. */
function named(ctx: BuildContext, name: string): z.ZodType {
  let schema = ctx.named.get(name);
  if (schema === undefined) {
    const type = lookupType(ctx.manifest, name)!;
    if (ctx.recursive.has(name)) {
      schema = z.lazy(() => zodFor(ctx, type));
      ctx.registry.add(schema, { id: name });
    } else schema = zodFor(ctx, type);
    ctx.named.set(name, schema);
  }
  return schema;
}

/** A record-like object from `[name, schema]` entries (entries keep `__proto__` an ordinary key). */
function object(ctx: BuildContext, entries: [string, z.ZodType][]): z.ZodType {
  const shape = Object.fromEntries(entries);
  return ctx.direction === "input" ? z.strictObject(shape) : z.object(shape);
}

function recordSchema(ctx: BuildContext, type: AbiType & { kind: "record" }): z.ZodType {
  if (isOpaqueCrdt(type)) return z.unknown();
  return object(
    ctx,
    type.fields.map((field) => {
      let schema = zodFor(ctx, field.type);
      if (field.nullable && ctx.direction === "output") schema = z.union([schema, z.null()]);
      schema = describe(ctx, schema, field.doc);
      return [field.name, field.nullable ? schema.optional() : schema];
    }),
  );
}

function variantSchema(ctx: BuildContext, type: AbiType & { kind: "variant" }): z.ZodType {
  const names = type.variants.map((v) => v.name);
  if (names.length === 0) return z.never();
  if (type.variants.every((v) => v.payload === undefined)) {
    return z.enum(names as [string, ...string[]]);
  }
  // No `{"type":"null"}`-only schema is advertised (Gemini refuses them). Arguments take one object, a unit case
  // as an empty object (`{"Empty": {}}`), since LangChain's adapter keeps only one branch of an `anyOf`; the
  // name alone is accepted too. Results name a unit case by a string, so they are `anyOf [names, object]`.
  const units = ctx.direction === "output"
    ? type.variants.filter((v) => v.payload === undefined)
    : [];
  const cased = type.variants.filter((v) => !units.includes(v));
  const shape = cased.map((v): [string, z.ZodType] => {
    const payload = v.payload === undefined ? z.strictObject({}) : zodFor(ctx, v.payload);
    return [v.name, describe(ctx, payload, v.doc).optional()];
  });
  const tagged = withMeta(ctx, object(ctx, shape), { minProperties: 1, maxProperties: 1 });
  if (units.length === 0) return tagged;
  return z.union([z.enum(units.map((v) => v.name) as [string, ...string[]]), tagged]);
}

/** The zod schema for one type reference, in the context's direction. */
function zodFor(ctx: BuildContext, ref: TypeRef): z.ZodType {
  if ("$ref" in ref) return named(ctx, ref.$ref);
  if (ref.kind !== "unknown" && ref.inner_type !== undefined) return zodFor(ctx, ref.inner_type);
  switch (ref.kind) {
    case "bool":
      return z.boolean();
    case "string":
      return z.string();
    case "f32":
    case "f64":
      return z.number();
    case "unit":
      return z.null();
    case "i32":
      return z.int().min(I32.min).max(I32.max);
    case "u32":
      return z.int().min(U32.min).max(U32.max);
    case "i64":
      return z.string().regex(new RegExp(I64_PATTERN));
    case "u64":
      return z.string().regex(new RegExp(U64_PATTERN));
    case "bytes": {
      const hint = ref.size === undefined
        ? "Bytes as a hex string."
        : `${ref.size} bytes as a hex string.`;
      return describe(ctx, z.string().regex(new RegExp(hexPattern(ref.size))), hint);
    }
    case "list":
      return z.array(zodFor(ctx, ref.items));
    case "map":
      return z.record(z.string(), zodFor(ctx, ref.value));
    case "tuple":
      return z.tuple(ref.elements.map((e) => zodFor(ctx, e)) as [z.ZodType, ...z.ZodType[]]);
    case "record":
      return describe(ctx, recordSchema(ctx, ref), ref.doc);
    case "variant":
      return describe(ctx, variantSchema(ctx, ref), ref.doc);
    case "alias":
      return describe(ctx, zodFor(ctx, ref.target), ref.doc);
    case "unknown":
      return z.unknown();
  }
}

/**
 * Final touches zod does not offer: no `propertyNames` on maps; tuples bounded by `minItems`/`maxItems` alone,
 * without the `items: false` zod adds. A draft-07 validator (the v1 SDK's ajv, the Inspector, LangChain, Gemini)
 * ignores `prefixItems` and would apply `items: false` to every element, refusing every tuple.
 */
function override(ctx: { zodSchema: unknown; jsonSchema: Json }): void {
  const def = (ctx.zodSchema as { _zod: { def: { type: string } } })._zod.def;
  const json = ctx.jsonSchema;
  if (def.type === "record") delete json.propertyNames;
  if (def.type === "tuple" && Array.isArray(json.prefixItems)) {
    json.minItems = json.maxItems = json.prefixItems.length;
    if (json.items === false) delete json.items;
  }
}

/** Rewrites every type array (`["string", "null"]`, which some clients reject) as an `anyOf`. */
function noTypeArrays(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(noTypeArrays);
  if (typeof node !== "object" || node === null) return node;
  const out: Json = Object.fromEntries(
    Object.entries(node).map((
      [key, value],
    ) => [key, key === "enum" || key === "const" ? value : noTypeArrays(value)]),
  );
  if (!Array.isArray(out.type)) return out;
  const { type, description, ...rest } = out;
  const anyOf = (type as string[]).map((t) => (t === "null" ? { type: t } : { type: t, ...rest }));
  return description === undefined ? { anyOf } : { anyOf, description };
}

function toJson(ctx: BuildContext, schema: z.ZodType): Json {
  const raw = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    metadata: ctx.registry,
    cycles: "ref",
    reused: "inline",
    unrepresentable: "any",
    override,
  });
  const json = noTypeArrays(raw) as Json;
  delete json.$schema;
  // A recursive type at the root comes out as a bare `$ref`: inline its definition instead.
  const defs = json.$defs as Record<string, Json> | undefined;
  if (typeof json.$ref === "string" && defs !== undefined) {
    const target = defs[json.$ref.replace("#/$defs/", "")];
    if (target !== undefined) {
      const { $ref: _ref, ...rest } = json;
      return { ...target, ...rest };
    }
  }
  return json;
}

function schemasOf(manifest: AbiManifest): ManifestSchemas {
  let entry = cache.get(manifest);
  if (entry === undefined) {
    entry = { contexts: null, methods: new Map() };
    cache.set(manifest, entry);
  }
  return entry;
}

function contextsOf(manifest: AbiManifest, schemas: ManifestSchemas) {
  if (schemas.contexts === null) {
    const recursive = recursiveTypes(manifest);
    const context = (direction: Direction): BuildContext => ({
      manifest,
      direction,
      recursive,
      registry: z.registry<Meta>(),
      named: new Map(),
    });
    schemas.contexts = { input: context("input"), output: context("output") };
  }
  return schemas.contexts;
}

function buildInput(ctx: BuildContext, method: AbiMethod): Json {
  const shape = method.params.map((param): [string, z.ZodType] => {
    const schema = describe(ctx, zodFor(ctx, param.type), param.doc);
    return [param.name, param.nullable ? schema.optional() : schema];
  });
  return toJson(ctx, z.object(Object.fromEntries(shape)));
}

function buildOutput(ctx: BuildContext, method: AbiMethod): Json | undefined {
  if (method.returns === undefined || returnsNothing(ctx.manifest, method)) return undefined;
  let json = toJson(ctx, zodFor(ctx, method.returns));
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
  const schemas = schemasOf(manifest);
  let entry = schemas.methods.get(method.name);
  if (entry === undefined) {
    checkBudget(manifest, method);
    const contexts = contextsOf(manifest, schemas);
    entry = {
      input: buildInput(contexts.input, method),
      output: buildOutput(contexts.output, method),
    };
    schemas.methods.set(method.name, entry);
    // Every method built: the zod state is garbage from now on (a large share of memory with many apps).
    if (schemas.methods.size >= manifest.methods.length) schemas.contexts = null;
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
