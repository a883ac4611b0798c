// The offline rules `mero-mcp check` applies beyond the server's parser: what the `wasm-abi/1` format expects
// (required keys, name order, known keys), advice to app authors, and what the namer and schema builder did.

import type { AbiManifest, AbiMethod } from "../../apps/abi_format.ts";
import { FIXED_TOOL_NAMES, MAX_TOOL_NAME_LENGTH } from "../../apps/names.ts";
import { methodInputSchema, methodOutputSchema } from "../../apps/schema.ts";
import { byCodeUnits } from "../../apps/resolve.ts";
import type { Problem } from "./input.ts";

/** The prefix a typical client puts before a tool name (with the recommended server key `mero`). */
export const CLIENT_PREFIX = "mcp__mero__";
/** The longest full tool name common clients accept. */
export const CLIENT_NAME_LIMIT = 64;
/** Stands in for the application id, which only exists once the app is installed on a node. */
export const PLACEHOLDER_APP_ID = "xxxxxx";

const TOP_LEVEL_KEYS = new Set([
  "schema_version",
  "types",
  "methods",
  "events",
  "state_root",
  "state_version",
  "migrations",
]);

/** What the format expects beyond what the parser enforces: required keys, name order, known keys, intents. */
export function shapeProblems(raw: Record<string, unknown>, manifest: AbiManifest): Problem[] {
  const problems: Problem[] = [];
  for (const key of ["types", "events"]) {
    if (raw[key] === undefined) {
      problems.push({
        severity: "warning",
        message: `"${key}" is missing; the format requires it (mero-mcp reads it as empty).`,
      });
    }
  }
  for (const key of Object.keys(raw)) {
    if (!TOP_LEVEL_KEYS.has(key)) {
      problems.push({ severity: "note", message: `Unknown top-level key "${key}" is ignored.` });
    }
  }
  const unsorted = [
    ["methods", manifest.methods.map((m) => m.name)],
    ["types", Object.keys(manifest.types)],
    ["events", manifest.events.map((e) => e.name)],
  ] as const;
  for (const [what, names] of unsorted) {
    const at = names.findIndex((n, i) => i > 0 && byCodeUnits(names[i - 1], n) > 0);
    if (at > 0) {
      problems.push({
        severity: "warning",
        message: `${what} are not sorted by name ("${names[at - 1]}" comes before "${
          names[at]
        }"); the Calimero toolchain emits them sorted, so this file may be hand-edited.`,
      });
    }
  }
  const minor = /^wasm-abi\/1\.([0-9]+)$/.exec(manifest.schema_version);
  if (minor !== null) {
    problems.push({
      severity: "note",
      message: `schema_version "${manifest.schema_version}" is a newer minor version: keys this ` +
        `mero-mcp does not know are ignored.`,
    });
  }
  const noIntent = manifest.methods.filter((m) => m.name !== "init" && m.intent === undefined);
  if (noIntent.length > 0) {
    problems.push({
      severity: "note",
      message: `${noIntent.length} of ${manifest.methods.length} methods declare no intent ` +
        `(${listNames(noIntent.map((m) => m.name))}): their tools are marked as writes, so ` +
        `clients ask before each call. Mark views read_only.`,
    });
  }
  for (const method of manifest.methods) {
    if (method.params.some((p) => p.name === "context") && method.name !== "init") {
      problems.push({
        severity: "note",
        message: `Method "${method.name}" has its own "context" parameter: its tool takes the ` +
          `context only through app_handle.`,
      });
    }
  }
  return problems;
}

/** Builds the method's schemas as the server would: a failure would break the app's tools on a node. */
export function schemaProblems(manifest: AbiManifest, method: AbiMethod): Problem[] {
  let input: Record<string, unknown>;
  try {
    input = methodInputSchema(manifest, method).json;
    methodOutputSchema(manifest, method);
  } catch (error) {
    return [{
      severity: "error",
      message: `Method "${method.name}": its JSON Schema cannot be built: ${
        (error as Error).message
      }`,
    }];
  }
  if (input.$defs === undefined) return [];
  return [{
    severity: "note",
    message: `Method "${method.name}" takes a recursive type (${
      Object.keys(input.$defs as object).join(", ")
    }): its input schema needs $ref, which some clients reject.`,
  }];
}

/** Why a tool's name is not the plain `<slug>_<method>`: too long, a fixed tool's name, or shared with another. */
export function nameProblems(
  name: string,
  expected: string,
  method: string,
  sharing: number,
): Problem[] {
  const problems: Problem[] = [];
  if (name.length + CLIENT_PREFIX.length > CLIENT_NAME_LIMIT) {
    problems.push({
      severity: "warning",
      message: `Tool "${name}" is ${name.length + CLIENT_PREFIX.length} characters with the ` +
        `"${CLIENT_PREFIX}" prefix, over the ${CLIENT_NAME_LIMIT} that clients accept.`,
    });
  }
  if (name === expected) return problems;
  if (expected.length > MAX_TOOL_NAME_LENGTH) {
    problems.push({
      severity: "note",
      message: `Method "${method}": "${expected}" is ${expected.length} characters, over ` +
        `${MAX_TOOL_NAME_LENGTH}, so the tool is named "${name}". A shorter method name keeps it readable.`,
    });
  } else if (FIXED_TOOL_NAMES.includes(expected)) {
    problems.push({
      severity: "warning",
      message: `Method "${method}": "${expected}" is a fixed tool's name, so the tool is named ` +
        `"${name}" (${PLACEHOLDER_APP_ID} stands for the start of the application id).`,
    });
  } else if (sharing > 1) {
    problems.push({
      severity: "warning",
      message: `Method "${method}": ${sharing} methods would be named "${expected}", so this one ` +
        `is named "${name}" (its ${PLACEHOLDER_APP_ID} and tag come from the application id once ` +
        `installed). Give them names that differ in more than case and punctuation.`,
    });
  }
  return problems;
}

function listNames(names: string[]): string {
  return names.length <= 5 ? names.join(", ") : `${names.slice(0, 5).join(", ")}, …`;
}
