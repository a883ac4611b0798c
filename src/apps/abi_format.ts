// The `wasm-abi/1` manifest: its types, its errors, and small readers (resolve, format, signature).
// Readers trust their input: every `$ref` names a type and no alias loops, which `parseAbiManifest`
// (abi_parse.ts) guarantees; an unknown `kind` is `{ kind: "unknown" }` and accepts any JSON value.

/** Scalar kinds of the format. */
export type ScalarKind = "bool" | "i32" | "i64" | "u32" | "u64" | "f32" | "f64" | "string" | "unit";

/** CRDT markers any type may carry; a wrapper with `inner_type` is the inner type on the wire. */
export interface CrdtMarks {
  crdt_type?: string;
  inner_type?: TypeRef;
}
/** A reference to a named type in `types`. */
export interface RefType {
  $ref: string;
}
/** A scalar type. */
export interface ScalarType extends CrdtMarks {
  kind: ScalarKind;
}
/** Bytes; `size` fixes the length. */
export interface BytesType extends CrdtMarks {
  kind: "bytes";
  size?: number;
  encoding?: string;
}
/** A list of `items`. */
export interface ListType extends CrdtMarks {
  kind: "list";
  items: TypeRef;
}
/** A map; keys are strings on the wire. */
export interface MapType extends CrdtMarks {
  kind: "map";
  key: TypeRef;
  value: TypeRef;
}
/** A fixed-length tuple. */
export interface TupleType extends CrdtMarks {
  kind: "tuple";
  elements: TypeRef[];
}
/** A record (struct). */
export interface RecordType extends CrdtMarks {
  kind: "record";
  fields: AbiField[];
  doc?: string;
}
/** A variant (enum); serde external tagging on the wire. */
export interface VariantType extends CrdtMarks {
  kind: "variant";
  variants: AbiVariant[];
  doc?: string;
}
/** An alias of `target`. */
export interface AliasType extends CrdtMarks {
  kind: "alias";
  target: TypeRef;
  doc?: string;
}
/** A kind this reader does not know (`unknown_kind` is the original); it accepts any JSON value. */
export interface UnknownType {
  kind: "unknown";
  unknown_kind: string;
}
/** Any inline type. */
export type AbiType =
  | ScalarType
  | BytesType
  | ListType
  | MapType
  | TupleType
  | RecordType
  | VariantType
  | AliasType
  | UnknownType;
/** A type reference: a named `$ref` or an inline type. */
export type TypeRef = RefType | AbiType;

/** A record field or a method parameter. */
export interface AbiField {
  name: string;
  type: TypeRef;
  nullable?: boolean;
  doc?: string;
}
/** One case of a variant. */
export interface AbiVariant {
  name: string;
  code?: string;
  payload?: TypeRef;
  doc?: string;
}
/** Declared read/write intent; only `read_only` is a read. */
export type MethodIntent = "read_only" | "mutating" | "unspecified";
/** One method of the app. */
export interface AbiMethod {
  name: string;
  params: AbiField[];
  returns?: TypeRef;
  returns_nullable?: boolean;
  returns_doc?: string;
  doc?: string;
  intent?: MethodIntent;
  destructive?: boolean;
  idempotent?: boolean;
  errors?: { code: string; payload?: TypeRef }[];
  xcall_callable?: boolean;
  xcall_callers?: string;
}
/** One event the app emits. */
export interface AbiEvent {
  name: string;
  payload?: TypeRef;
}
/** A parsed, validated `wasm-abi/1` manifest plus the non-fatal problems found in it. */
export interface AbiManifest {
  schema_version: string;
  types: Record<string, TypeRef>;
  methods: AbiMethod[];
  events: AbiEvent[];
  state_root?: string;
  state_version?: number;
  migrations?: { method: string; fromVersion: number }[];
  /** Non-fatal findings (unknown kinds, unknown intents) for `mero-mcp check` to print. */
  problems: string[];
  /** A person's view marks that were not applied to this app, each "method: why" (apps/marks.ts). */
  unappliedMarks?: string[];
}

/** A manifest that cannot be used; the message names the offending place and value. */
export class AbiFormatError extends Error {
  override name = "AbiFormatError";
}

/** A well-formed manifest of a format major this version does not read (a settled answer, not a glitch). */
export class UnsupportedAbiVersionError extends AbiFormatError {
  override name = "UnsupportedAbiVersionError";
}

/** The named type `name`, or undefined (own keys only, so `"constructor"` is not a type). */
export function lookupType(manifest: AbiManifest, name: string): TypeRef | undefined {
  return Object.hasOwn(manifest.types, name) ? manifest.types[name] : undefined;
}

/**
 * Follows `$ref`s and aliases and unwraps CRDT wrappers that carry `inner_type`, giving the type
 * that decides the value's shape on the wire. Never returns a `$ref` or an alias.
 */
export function resolveType(manifest: AbiManifest, typeRef: TypeRef): AbiType {
  let current = typeRef;
  // A parsed manifest has no loops; the bound only protects hand-built ones.
  for (let step = 0; step <= 2 * Object.keys(manifest.types).length + 2; step++) {
    if ("$ref" in current) {
      const next = lookupType(manifest, current.$ref);
      if (next === undefined) throw new AbiFormatError(`Type "${current.$ref}" is not defined.`);
      current = next;
    } else if (current.kind !== "unknown" && current.inner_type !== undefined) {
      current = current.inner_type;
    } else if (current.kind === "alias") {
      current = current.target;
    } else {
      return current;
    }
  }
  throw new AbiFormatError("Type references loop without reaching a concrete type.");
}

/** True for a CRDT with no inner type and no fields (e.g. `counter`): its wire form is opaque. */
export function isOpaqueCrdt(type: AbiType): boolean {
  return type.kind === "record" && type.crdt_type !== undefined && type.fields.length === 0;
}

/** True when the method declares `read_only` intent (anything else may write). */
export function isReadOnly(method: AbiMethod): boolean {
  return method.intent === "read_only";
}

/** A type written compactly for people: `list<string>`, `map<string, u64>`, names for `$ref`s. */
export function formatType(typeRef: TypeRef): string {
  if ("$ref" in typeRef) return typeRef.$ref;
  switch (typeRef.kind) {
    case "unknown":
      return typeRef.unknown_kind;
    case "bytes":
      return typeRef.size === undefined ? "bytes" : `bytes<${typeRef.size}>`;
    case "list":
      return `list<${formatType(typeRef.items)}>`;
    case "map":
      return `map<${formatType(typeRef.key)}, ${formatType(typeRef.value)}>`;
    case "tuple":
      return `(${typeRef.elements.map(formatType).join(", ")})`;
    case "alias":
      return formatType(typeRef.target);
    case "variant":
      return typeRef.variants.map((v) => v.name).join(" | ") || "never";
    case "record": {
      if (typeRef.inner_type !== undefined) return formatType(typeRef.inner_type);
      if (typeRef.crdt_type !== undefined && typeRef.fields.length === 0) return typeRef.crdt_type;
      const fields = typeRef.fields.map((f) =>
        `${f.name}${f.nullable ? "?" : ""}: ${formatType(f.type)}`
      );
      return `{${fields.join(", ")}}`;
    }
    default:
      return typeRef.inner_type !== undefined ? formatType(typeRef.inner_type) : typeRef.kind;
  }
}

/** True when a return type carries no value (absent or `unit`, after resolution). */
export function returnsNothing(manifest: AbiManifest, method: AbiMethod): boolean {
  return method.returns === undefined || resolveType(manifest, method.returns).kind === "unit";
}

/**
 * The method's one-line signature shown to agents, e.g. `[view] get(key: string) -> string`:
 * `[view]` for read-only methods, `[mut]` otherwise, `?` on nullable parameters, `| null` on a
 * nullable return, no arrow for a method that returns nothing.
 */
export function signatureLine(method: AbiMethod): string {
  const tag = isReadOnly(method) ? "[view]" : "[mut]";
  const params = method.params.map((p) =>
    `${p.name}${p.nullable ? "?" : ""}: ${formatType(p.type)}`
  );
  const returns = method.returns;
  const unit = returns === undefined || (!("$ref" in returns) && returns.kind === "unit");
  const tail = unit ? "" : ` -> ${formatType(returns)}${method.returns_nullable ? " | null" : ""}`;
  return `${tag} ${method.name}(${params.join(", ")})${tail}`;
}
