// Just enough of the `wasm-abi/1` format for the simulated node: find methods, resolve type
// references (`$ref`, aliases, CRDT wrappers) and drop the keys the node's ABI route does not model.

/** A type reference or definition as it appears in a manifest. */
export type AbiType = Record<string, unknown>;

/** A method as it appears in a manifest. */
export interface AbiMethod {
  name: string;
  params?: { name: string; type: AbiType; nullable?: boolean }[];
  returns?: AbiType;
  returns_nullable?: boolean;
  intent?: string;
}

/** The parts of a manifest the simulated node reads. */
export interface AbiManifest {
  schema_version?: string;
  types?: Record<string, AbiType>;
  methods?: AbiMethod[];
}

const parsed = new Map<string, AbiManifest | null>();

/** The manifest as an object when `abi` is one (raw text is parsed, once); null when unusable. */
export function manifestOf(abi: unknown): AbiManifest | null {
  if (typeof abi === "string") {
    if (!parsed.has(abi)) {
      let value: AbiManifest | null = null;
      try {
        value = manifestOf(JSON.parse(abi));
      } catch { /* not JSON: unusable */ }
      parsed.set(abi, value);
    }
    return parsed.get(abi) ?? null;
  }
  if (abi === null || typeof abi !== "object" || Array.isArray(abi)) return null;
  return abi as AbiManifest;
}

/** The method declared under `name`, if any. */
export function findMethod(abi: AbiManifest | null, name: string): AbiMethod | undefined {
  return abi?.methods?.find((m) => m.name === name);
}

/** Follows `$ref`, `alias` and CRDT wrappers to the type that is on the wire. */
export function resolveType(abi: AbiManifest, type: AbiType, depth = 0): AbiType {
  if (depth > 32) return {};
  if (typeof type.$ref === "string") {
    const target = abi.types?.[type.$ref];
    return target ? resolveType(abi, target, depth + 1) : {};
  }
  if (type.kind === "alias" && type.target) {
    return resolveType(abi, type.target as AbiType, depth + 1);
  }
  if (type.inner_type && typeof type.inner_type === "object") {
    return resolveType(abi, type.inner_type as AbiType, depth + 1);
  }
  return type;
}

const METHOD_KEYS_DROPPED = ["doc", "returns_doc", "destructive", "idempotent"];

/** A deep copy without `doc`, `returns_doc`, `destructive`, `idempotent`, as the node's route serves it. */
export function stripDocs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDocs);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (!METHOD_KEYS_DROPPED.includes(key)) out[key] = stripDocs(inner);
  }
  return out;
}
