// An app's typed client for scripts (run_script): TypeScript declarations of `calimero.<slug>`, one function per
// method with its parameters and result typed from the ABI, and its events as a union. The mapping is the one the
// tools' JSON Schemas use (src/apps/schema.ts): 64-bit integers as decimal strings, bytes as hex strings, a unit
// variant by its name, a variant with data as a one-key object, maps with string keys, a nullable field optional.
// The ABI is other parties' text: names that are not identifiers are quoted, docs are cut and kept on one line.

import type { AbiManifest, AbiMethod, TypeRef } from "./abi_format.ts";
import { isOpaqueCrdt, isReadOnly, lookupType } from "./abi_format.ts";
import { escapeHidden } from "../text.ts";

/** The longest doc comment kept per declaration. */
const MAX_DOC = 200;
/** The deepest inline type written; deeper is `unknown`. */
const MAX_DEPTH = 32;

/** A property or type name as TypeScript takes it: bare when it is an identifier, else quoted. */
function key(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/** A named type's name, made an identifier (`$ref` names are the ABI's, e.g. `Issue` or `a::b::C`). */
function typeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_$]/g, "_");
  return /^[A-Za-z_$]/.test(cleaned) ? cleaned : `T_${cleaned}`;
}

function doc(text: string | undefined, indent: string): string {
  if (!text) return "";
  const line = escapeHidden(text).replace(/\s+/g, " ").replace(/\*\//g, "*\\/").trim();
  const cut = line.length > MAX_DOC ? `${line.slice(0, MAX_DOC)}…` : line;
  return `${indent}/** ${cut} */\n`;
}

/** The TypeScript type of an ABI type reference. */
export function tsType(manifest: AbiManifest, ref: TypeRef, depth = 0): string {
  if (depth > MAX_DEPTH) return "unknown";
  if ("$ref" in ref) return lookupType(manifest, ref.$ref) ? typeName(ref.$ref) : "unknown";
  if (ref.kind !== "unknown" && ref.inner_type !== undefined) {
    return tsType(manifest, ref.inner_type, depth + 1);
  }
  const next = (r: TypeRef) => tsType(manifest, r, depth + 1);
  switch (ref.kind) {
    case "bool":
      return "boolean";
    case "i32":
    case "u32":
    case "f32":
    case "f64":
      return "number";
    case "i64":
    case "u64":
      return "string";
    case "string":
      return "string";
    case "unit":
      return "null";
    case "bytes":
      return "string /* hex */";
    case "list":
      return `Array<${next(ref.items)}>`;
    case "map":
      return `Record<string, ${next(ref.value)}>`;
    case "tuple":
      return `[${ref.elements.map(next).join(", ")}]`;
    case "record":
      if (isOpaqueCrdt(ref)) return "unknown";
      return `{ ${
        ref.fields.map((f) =>
          `${key(f.name)}${f.nullable ? "?" : ""}: ${next(f.type)}${f.nullable ? " | null" : ""}`
        ).join("; ")
      } }`;
    case "variant": {
      if (ref.variants.length === 0) return "never";
      return ref.variants.map((v) =>
        v.payload === undefined ? JSON.stringify(v.name) : `{ ${key(v.name)}: ${next(v.payload)} }`
      ).join(" | ");
    }
    case "alias":
      return next(ref.target);
    default:
      return "unknown";
  }
}

/** One method's declaration line(s). */
function methodDeclaration(manifest: AbiManifest, method: AbiMethod): string {
  const params = method.params.map((p) =>
    `${key(p.name)}${p.nullable ? "?" : ""}: ${tsType(manifest, p.type)}${
      p.nullable ? " | null" : ""
    }`
  );
  const args = params.length ? `args: { ${params.join("; ")} }` : "args: Record<string, never>";
  const result = method.returns === undefined
    ? "null"
    : `${tsType(manifest, method.returns)}${method.returns_nullable ? " | null" : ""}`;
  const marks = [
    isReadOnly(method) ? "reads" : "writes",
    ...(method.destructive ? ["destructive: not run from scripts"] : []),
  ].join(", ");
  const about = method.doc ? `${method.doc} (${marks})` : `(${marks})`;
  return `${doc(about, "  ")}  function ${
    key(method.name)
  }(${args}, options: { context: string }): Promise<${result}>;\n`;
}

/**
 * The declarations of one app unit as `calimero.<slug>`: its named types, its methods (init left out: it runs only
 * when a context is created), and `Event`, the union of what it emits as wait_for_events shows app events.
 */
export function clientDeclarations(manifest: AbiManifest, slug: string, title: string): string {
  const lines: string[] = [
    `// ${escapeHidden(title).replace(/\s+/g, " ").slice(0, 120)}: calimero.${slug}`,
    `declare namespace calimero.${slug} {`,
  ];
  for (const [name, type] of Object.entries(manifest.types)) {
    lines.push(`  type ${typeName(name)} = ${tsType(manifest, type)};`);
  }
  for (const method of manifest.methods) {
    if (method.name === "init") continue;
    lines.push(methodDeclaration(manifest, method).trimEnd());
  }
  const events = manifest.events.map((e) =>
    `{ name: ${JSON.stringify(e.name)}; payload: ${
      e.payload === undefined ? "null" : tsType(manifest, e.payload)
    } }`
  );
  lines.push(`  type Event = ${events.length ? events.join(" | ") : "never"};`);
  lines.push("}");
  return lines.join("\n");
}

/** What every script sees besides the apps: waiting for events, and its console. */
export const SCRIPT_PRELUDE = [
  "// The body of an async function: `return` gives the result (JSON). Every call goes through the checks a tool call does.",
  "declare namespace calimero {",
  "  /** wait_for_events' arguments and result: { context, after?, events?, timeout_s? } → { events, cursor, … } */",
  "  function waitForEvents(options: { context: string; after?: string; events?: string[]; timeout_s?: number }): Promise<{ events: unknown[]; cursor: string; more?: boolean; timedOut?: boolean; notes?: string[] }>;",
  "}",
  "declare const console: { log(...values: unknown[]): void };",
].join("\n");
