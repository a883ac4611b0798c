// An app's typed client for scripts (run_script): TypeScript declarations of `calimero.<slug>`, one function per
// method with its parameters and result typed from the ABI, and its events as a union. The mapping is the one the
// tools' JSON Schemas use (src/apps/schema.ts): 64-bit integers as decimal strings, bytes as hex strings, a unit
// variant by its name, a variant with data as a one-key object, maps with string keys, a nullable field optional.
// The ABI is other parties' text: names that are not identifiers are quoted, docs are cut and kept on one line.

import type { AbiManifest, AbiMethod, TypeRef } from "./abi_format.ts";
import { isOpaqueCrdt, isReadOnly, lookupType } from "./abi_format.ts";
import { escapeHidden } from "../lib/text.ts";

/** The longest doc comment kept per declaration. */
const MAX_DOC = 200;
/** The deepest inline type written; deeper is `unknown`. */
const MAX_DEPTH = 32;

/** A property or method name as TypeScript takes it: bare when it is an identifier, else quoted. */
function key(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/**
 * Names no ABI type may take in the declarations: TypeScript's own types, the globals the declarations use (a type
 * named `Array` would shadow them), and `Event`, the union of the app's events.
 */
const TAKEN = new Set([
  "Event",
  "Array",
  "Record",
  "Promise",
  "any",
  "unknown",
  "never",
  "string",
  "number",
  "boolean",
  "symbol",
  "object",
  "bigint",
  "undefined",
  "null",
  "void",
  "this",
  "true",
  "false",
]);

const typeNameCache = new WeakMap<AbiManifest, Map<string, string>>();

/**
 * Each named type's TypeScript name: the ABI's (`Issue`, `a::b::C`) made an identifier, then made unique (`a::B` and
 * `a__B` would both be `a__B`) and kept off {@link TAKEN}, by a numbered suffix.
 */
function typeNames(manifest: AbiManifest): Map<string, string> {
  const cached = typeNameCache.get(manifest);
  if (cached) return cached;
  const names = new Map<string, string>();
  const used = new Set(TAKEN);
  for (const name of Object.keys(manifest.types)) {
    const cleaned = name.replace(/[^A-Za-z0-9_$]/g, "_");
    const base = /^[A-Za-z_$]/.test(cleaned) ? cleaned : `T_${cleaned}`;
    let unique = base;
    for (let n = 2; used.has(unique); n++) unique = `${base}_${n}`;
    used.add(unique);
    names.set(name, unique);
  }
  typeNameCache.set(manifest, names);
  return names;
}

/** A doc comment: `lead` (ours, never cut) then the ABI's text, cut and kept on one line. */
function doc(lead: string, text: string | undefined, indent: string): string {
  const line = escapeHidden(text ?? "").replace(/\s+/g, " ").replace(/\*\//g, "*\\/").trim();
  const cut = line.length > MAX_DOC ? `${line.slice(0, MAX_DOC)}…` : line;
  const body = [lead, cut].filter(Boolean).join(" ");
  return body ? `${indent}/** ${body} */\n` : "";
}

/** The TypeScript type of an ABI type reference; a named type is written with `prefix` (its namespace) before it. */
export function tsType(manifest: AbiManifest, ref: TypeRef, depth = 0, prefix = ""): string {
  if (depth > MAX_DEPTH) return "unknown";
  if ("$ref" in ref) {
    return lookupType(manifest, ref.$ref)
      ? `${prefix}${typeNames(manifest).get(ref.$ref)}`
      : "unknown";
  }
  if (ref.kind !== "unknown" && ref.inner_type !== undefined) {
    return tsType(manifest, ref.inner_type, depth + 1, prefix);
  }
  const next = (r: TypeRef) => tsType(manifest, r, depth + 1, prefix);
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

/**
 * One method's declaration, as a member of the app's client object (so any name works, `delete` or `a b` included):
 * the server's own mark first in its doc, where no length of the ABI's doc can push it out.
 */
function methodDeclaration(manifest: AbiManifest, method: AbiMethod, prefix: string): string {
  const type = (ref: TypeRef) => tsType(manifest, ref, 0, prefix);
  const params = method.params.map((p) =>
    `${key(p.name)}${p.nullable ? "?" : ""}: ${type(p.type)}${p.nullable ? " | null" : ""}`
  );
  const args = params.length ? `args: { ${params.join("; ")} }` : "args: Record<string, never>";
  const result = method.returns === undefined
    ? "null"
    : `${type(method.returns)}${method.returns_nullable ? " | null" : ""}`;
  const marks = [
    isReadOnly(method) ? "reads" : "writes",
    ...(method.destructive ? ["destructive: not run from scripts"] : []),
  ].join(", ");
  // `new(…)` in a type would be a construct signature: quoted, it is a method named "new".
  const name = method.name === "new" ? '"new"' : key(method.name);
  return `${
    doc(`(${marks})`, method.doc, "    ")
  }    ${name}(${args}, options: { context: string }): Promise<${result}>;\n`;
}

/**
 * The declarations of one app unit as `calimero.<slug>`: its named types and `Event` (the union of what it emits, as
 * wait_for_events shows app events) in the namespace `calimero.<slug>`, and its methods (init left out: it runs only
 * when a context is created) on the object `calimero.<slug>`.
 */
export function clientDeclarations(manifest: AbiManifest, slug: string, title: string): string {
  const names = typeNames(manifest);
  const lines: string[] = [
    `// ${escapeHidden(title).replace(/\s+/g, " ").slice(0, 120)}: calimero.${slug}`,
    `declare namespace calimero.${slug} {`,
  ];
  for (const [name, type] of Object.entries(manifest.types)) {
    lines.push(`  type ${names.get(name)} = ${tsType(manifest, type)};`);
  }
  const events = manifest.events.map((e) =>
    `{ name: ${JSON.stringify(e.name)}; payload: ${
      e.payload === undefined ? "null" : tsType(manifest, e.payload)
    } }`
  );
  lines.push(`  type Event = ${events.length ? events.join(" | ") : "never"};`);
  lines.push("}");
  lines.push("declare namespace calimero {");
  lines.push(`  const ${slug}: {`);
  for (const method of manifest.methods) {
    if (method.name === "init") continue;
    lines.push(methodDeclaration(manifest, method, `calimero.${slug}.`).trimEnd());
  }
  lines.push("  };");
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
