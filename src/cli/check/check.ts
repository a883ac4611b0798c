// `mero-mcp check`: validates an app's ABI offline with the server's own parser, namer and schema
// builder, and reports the tools it would generate and every problem. Reads only the paths it is given.

import { type AbiManifest, type AbiMethod, signatureLine } from "../../apps/abi_format.ts";
import { parseMarks, unknownMarked, unmarked, withMarks } from "../../apps/marks.ts";
import { parseAbiManifest } from "../../apps/abi_parse.ts";
import { assignToolNames, type NamingUnit, sanitize, unitSlug } from "../../apps/names.ts";
import { procedures } from "../../apps/guide.ts";
import { methodAnnotations, methodDescription } from "../../tools/generated.ts";
import type { Annotations } from "../../tools/tool.ts";
import { type BundleInput, loadInput, type Problem } from "./input.ts";

import {
  CLIENT_PREFIX,
  nameProblems,
  PLACEHOLDER_APP_ID,
  schemaProblems,
  shapeProblems,
} from "./rules.ts";

export type { Problem, Severity } from "./input.ts";
export { CLIENT_NAME_LIMIT, CLIENT_PREFIX, PLACEHOLDER_APP_ID } from "./rules.ts";

/** One tool the server would generate. */
export interface CheckedTool {
  name: string;
  /** The name's length, and with {@link CLIENT_PREFIX} in front (over {@link CLIENT_NAME_LIMIT} is flagged). */
  length: number;
  prefixedLength: number;
  method: string;
  service: string | null;
  signature: string;
  description: string;
  annotations: Annotations;
}

/** One ABI file: a bare ABI, or one service of a bundle. */
export interface CheckedUnit {
  service: string | null;
  abiPath: string;
  /** Null when the file could not be read or parsed (then `problems` holds the error). */
  schemaVersion: string | null;
  counts: { methods: number; types: number; events: number };
  tools: CheckedTool[];
  leftOut: { method: string; reason: string }[];
  problems: Problem[];
}

/** Everything `check` found; printed as text or as JSON (`--json`). */
export interface CheckReport {
  path: string;
  kind: "abi" | "bundle";
  /** The package tool names are derived from; `packageAssumed` when it was guessed from the path. */
  package: string;
  packageAssumed: boolean;
  valid: boolean;
  toolCount: number;
  units: CheckedUnit[];
  /** Problems of the input as a whole (unreadable paths, missing ABI files, a bundle manifest's shape). */
  problems: Problem[];
  guide: { source: string; procedures: string[]; problems: Problem[] } | null;
}

const LEFT_OUT_INIT =
  "runs once when a context is created; create_context takes its arguments in `args`.";
const LEFT_OUT_HANDLE =
  "has its own app_handle parameter, a name the server reserves: reachable only through `call`.";

/** Checks an ABI file or a bundle directory (with an optional guide file) and returns the report. */
export async function checkPath(
  path: string,
  options: { guideFile?: string | null; marksFile?: string | null } = {},
): Promise<CheckReport> {
  const input = await loadInput(path);
  const problems = [...input.problems];
  const units = input.units.map((u) => analyseUnit(u.abiPath, u.service, u.json, u.error));
  if (options.marksFile) {
    problems.push(...await checkMarks(options.marksFile, input.package, units));
  }
  const tools = await nameTools(input, units);
  const guide = await checkGuide(options.guideFile ?? null, input);
  const all = [...problems, ...units.flatMap((u) => u.problems), ...(guide?.problems ?? [])];
  return {
    path,
    kind: input.kind,
    package: input.package,
    packageAssumed: input.packageAssumed,
    valid: !all.some((p) => p.severity === "error"),
    toolCount: tools,
    units,
    problems,
    guide,
  };
}

/**
 * Checks a marks file (apps/marks.ts) against the package's ABI: the file parses, names this package, and every
 * method it marks exists; says which marks the server would not apply, and what the ABI leaves unmarked that the file
 * does not cover. The units' manifests become the marked ones, so the tools listed are what the server lists for the
 * app the marks name (its signer and version).
 */
async function checkMarks(
  file: string,
  pkg: string | null,
  units: CheckedUnit[],
): Promise<Problem[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    return [{
      severity: "error",
      message: `Cannot read the marks "${file}": ${(error as Error).message}.`,
    }];
  }
  const { marks, problems } = parseMarks(text);
  if (problems.length > 0) {
    return problems.map((message) => ({ severity: "error", message: `marks: ${message}` }));
  }
  const mark = pkg === null ? undefined : marks.get(pkg);
  if (mark === undefined) {
    return [{
      severity: "warning",
      message: `marks: ${file} has no entry for ${
        pkg ?? "this app (its package is unknown)"
      }, so it changes nothing here.`,
    }];
  }
  const found: Problem[] = [];
  for (const unit of units) {
    const manifest = manifestCache.get(unit);
    if (!manifest) continue;
    const unknown = unknownMarked(mark, manifest);
    if (unknown.length > 0) {
      found.push({
        severity: "error",
        message: `marks: no method ${unknown.join(", ")} in ${unit.abiPath}.`,
      });
    }
    const applied = withMarks(manifest, mark, { signerId: mark.signer, version: mark.version });
    manifestCache.set(unit, applied);
    for (const why of applied.unappliedMarks ?? []) {
      found.push({ severity: "error", message: `marks: not applied: ${why}.` });
    }
    const after = unmarked(applied);
    if (after.noDestructive) {
      found.push({
        severity: "warning",
        message:
          `marks: with them, ${unit.abiPath} still has no destructive method: nothing is asked about before it runs.`,
      });
    }
  }
  return found;
}

/** Parses one ABI with the server's parser and runs the offline conformance checks on its raw JSON. */
function analyseUnit(
  abiPath: string,
  service: string | null,
  json: unknown,
  readError: string | null,
): CheckedUnit {
  const unit: CheckedUnit = {
    service,
    abiPath,
    schemaVersion: null,
    counts: { methods: 0, types: 0, events: 0 },
    tools: [],
    leftOut: [],
    problems: [],
  };
  if (readError !== null) {
    unit.problems.push({ severity: "error", message: readError });
    return unit;
  }
  let manifest: AbiManifest;
  try {
    manifest = parseAbiManifest(json);
  } catch (error) {
    unit.problems.push({ severity: "error", message: (error as Error).message });
    return unit;
  }
  unit.schemaVersion = manifest.schema_version;
  unit.counts = {
    methods: manifest.methods.length,
    types: Object.keys(manifest.types).length,
    events: manifest.events.length,
  };
  manifestCache.set(unit, manifest);
  const raw = json as Record<string, unknown>;
  for (const message of manifest.problems) unit.problems.push({ severity: "warning", message });
  unit.problems.push(...shapeProblems(raw, manifest));
  for (const method of manifest.methods) {
    if (method.name === "init") unit.leftOut.push({ method: method.name, reason: LEFT_OUT_INIT });
    else if (method.params.some((p) => p.name === "app_handle")) {
      unit.leftOut.push({ method: method.name, reason: LEFT_OUT_HANDLE });
    }
  }
  return unit;
}

/** Parsed manifests by unit, kept out of the report (which is printed as JSON). */
const manifestCache = new WeakMap<CheckedUnit, AbiManifest>();

/**
 * Names every tool with the server's namer (the units of one app, under a placeholder id), builds each input
 * and output schema with the server's schema builder, and reports shortened and colliding names.
 */
async function nameTools(input: BundleInput, units: CheckedUnit[]): Promise<number> {
  const valid = units.filter((u) => manifestCache.has(u));
  const serviceCount = input.kind === "bundle" ? input.serviceCount : 0;
  const naming: NamingUnit[] = valid.map((u) => ({
    applicationId: PLACEHOLDER_APP_ID,
    package: input.package,
    service: u.service,
    serviceCount,
    methods: manifestCache.get(u)!.methods
      .filter((m) => !u.leftOut.some((l) => l.method === m.name))
      .map((m) => m.name),
  }));
  const names = await assignToolNames(naming);
  const plain = new Map<CheckedUnit, Map<string, string>>();
  for (let i = 0; i < valid.length; i++) {
    const { slug, uncut } = unitSlug(naming[i]);
    plain.set(valid[i], new Map(naming[i].methods.map((m) => [m, `${slug}_${sanitize(m)}`])));
    if (slug !== uncut) valid[i].problems.push(slugNote(slug, uncut, serviceCount >= 2));
  }
  const plainCount = new Map<string, number>();
  for (const map of plain.values()) {
    for (const p of map.values()) plainCount.set(p, (plainCount.get(p) ?? 0) + 1);
  }
  for (const [name, target] of names) {
    const unit = valid.find((u) => u.service === target.service)!;
    const manifest = manifestCache.get(unit)!;
    const method = manifest.methods.find((m) => m.name === target.method)!;
    unit.tools.push(describeTool(name, unit, method));
    unit.problems.push(...schemaProblems(manifest, method));
    const expected = plain.get(unit)!.get(method.name)!;
    unit.problems.push(...nameProblems(name, expected, method.name, plainCount.get(expected)!));
  }
  return names.size;
}

/** The note for a slug the namer had to shorten: every tool name of the unit starts with the cut form. */
function slugNote(slug: string, uncut: string, byService: boolean): Problem {
  const rule = byService
    ? "12 characters of the package's last segment and 16 of the service"
    : "20 characters of the package's last segment";
  return {
    severity: "note",
    message: `Tool names start with "${slug}_", shortened from "${uncut}" (names keep ${rule}). ` +
      "A shorter package segment keeps them readable.",
  };
}

function describeTool(name: string, unit: CheckedUnit, method: AbiMethod): CheckedTool {
  return {
    name,
    length: name.length,
    prefixedLength: CLIENT_PREFIX.length + name.length,
    method: method.name,
    service: unit.service,
    signature: signatureLine(method),
    description: methodDescription(method),
    annotations: methodAnnotations(method),
  };
}

/** The largest guide the app registry accepts at publish (16 KiB; a larger one is refused `invalid_guide`). */
const REGISTRY_GUIDE_BYTES = 16 * 1024;

/** Reads the guide (the `--guide` file, else the bundle's own) and lists its procedures. */
async function checkGuide(
  guideFile: string | null,
  input: BundleInput,
): Promise<CheckReport["guide"]> {
  let text: string;
  let source: string;
  if (guideFile !== null) {
    source = guideFile;
    try {
      text = await Deno.readTextFile(guideFile);
    } catch (error) {
      return {
        source,
        procedures: [],
        problems: [{
          severity: "error",
          message: `Cannot read the guide "${guideFile}": ${(error as Error).message}.`,
        }],
      };
    }
  } else if (input.guide !== null) {
    ({ text, source } = input.guide);
  } else return null;
  const found = procedures(text);
  const problems: Problem[] = [];
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > REGISTRY_GUIDE_BYTES) {
    problems.push({
      severity: "error",
      message: `The guide is ${bytes} bytes: the app registry refuses a guide over ${
        REGISTRY_GUIDE_BYTES / 1024
      } KiB (invalid_guide) at publish. Shorten it, or move detail into the app's docs.`,
    });
  }
  if (text.trim() === "") problems.push({ severity: "warning", message: "The guide is empty." });
  else if (found.length === 0) {
    problems.push({
      severity: "note",
      message: 'The guide has no "## Procedures" section with "###" headings: list_applications ' +
        "shows no procedures for this app.",
    });
  }
  return { source, procedures: found, problems };
}
