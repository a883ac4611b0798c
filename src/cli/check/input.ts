// What `mero-mcp check` reads: an ABI file, or a bundle directory whose `manifest.json` names one ABI per
// service (or one for the app). Every failure becomes a problem naming the path and what to do, never a throw.

import { basename, dirname, join } from "path";
import { exists } from "../../lib/fs.ts";

/** How bad a finding is: an `error` makes the input invalid (exit 1); the others are advice. */
export type Severity = "error" | "warning" | "note";

/** One finding of `check`. */
export interface Problem {
  severity: Severity;
  message: string;
}

/** One ABI file to check, already read and parsed as JSON (or the reason it could not be). */
export interface InputUnit {
  service: string | null;
  abiPath: string;
  json: unknown;
  /** Why the file could not be used (unreadable, not JSON), or null. */
  error: string | null;
}

/** The ABI files of one app, its package (real or guessed), and its bundled guide. */
export interface BundleInput {
  kind: "abi" | "bundle";
  package: string;
  /** True when the package was guessed from the file's path (a bare ABI carries none). */
  packageAssumed: boolean;
  /** How many services the bundle declares (0 for a bare ABI or an app-level ABI). */
  serviceCount: number;
  units: InputUnit[];
  problems: Problem[];
  guide: { text: string; source: string } | null;
}

const MANIFEST = "manifest.json";
const GUIDE = "GUIDE.md";
/** Directory names that say nothing about the app (build outputs, layout folders). */
const GENERIC_DIRS = new Set([
  "res",
  "logic",
  "build",
  "target",
  "dist",
  "out",
  "release",
  "debug",
  "wasm32-unknown-unknown",
  "src",
  "abi",
  "fixtures",
]);

/** Reads `path`: a directory (bundle, or one holding abi.json or res/abi.json) or a file (ABI or manifest). */
export async function loadInput(path: string): Promise<BundleInput> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    return failed(
      path,
      `Cannot read "${path}": ${reason(error)} Pass an abi.json file or a ` +
        `bundle directory with ${MANIFEST}.`,
    );
  }
  if (info.isDirectory) {
    if (await exists(join(path, MANIFEST))) return await loadBundle(join(path, MANIFEST));
    for (const candidate of ["abi.json", join("res", "abi.json")]) {
      if (await exists(join(path, candidate))) return await loadAbi(join(path, candidate));
    }
    return failed(
      path,
      `"${path}" is a directory without ${MANIFEST}, abi.json or res/abi.json. Pass an ABI ` +
        `file, or a bundle directory with ${MANIFEST}.`,
    );
  }
  const read = await readJson(path);
  if (read.error === null && looksLikeBundleManifest(read.json)) return await loadBundle(path);
  return await loadAbi(path, read);
}

async function loadAbi(
  path: string,
  read?: { json: unknown; error: string | null },
): Promise<BundleInput> {
  const { json, error } = read ?? await readJson(path);
  return {
    kind: "abi",
    package: guessPackage(path),
    packageAssumed: true,
    serviceCount: 0,
    units: [{ service: null, abiPath: path, json, error }],
    problems: [],
    guide: null,
  };
}

/** A bundle manifest: `package`, `appVersion`, `metadata`, and `abi` or `services[]` with `abi.path`. */
async function loadBundle(manifestPath: string): Promise<BundleInput> {
  const dir = dirname(manifestPath);
  const read = await readJson(manifestPath);
  if (read.error !== null) return failed(manifestPath, read.error);
  const manifest = record(read.json);
  const problems: Problem[] = [];
  const pkg = typeof manifest.package === "string" && manifest.package.trim() !== ""
    ? manifest.package.trim()
    : null;
  if (pkg === null) {
    problems.push({
      severity: "warning",
      message: `${manifestPath} has no "package": tool names below use the directory name.`,
    });
  }
  const wanted: { service: string | null; file: string }[] = [];
  const services = Array.isArray(manifest.services) ? manifest.services : [];
  for (const [i, raw] of services.entries()) {
    const service = record(raw);
    const name = typeof service.name === "string" && service.name !== "" ? service.name : null;
    const file = abiFile(service.abi);
    if (name === null || file === null) {
      problems.push({
        severity: "error",
        message: `${manifestPath}: services[${i}] needs a "name" and an "abi" with a "path".`,
      });
    } else wanted.push({ service: name, file });
  }
  const appAbi = abiFile(manifest.abi);
  if (services.length === 0 && appAbi !== null) wanted.push({ service: null, file: appAbi });
  if (services.length === 0 && appAbi === null) {
    problems.push({
      severity: "error",
      message: `${manifestPath} names no ABI: expected "abi": { "path": … } or "services" with ` +
        `an "abi" each.`,
    });
  }
  wanted.sort((a, b) => (a.service ?? "") < (b.service ?? "") ? -1 : 1);
  const units: InputUnit[] = [];
  const missing: string[] = [];
  for (const { service, file } of wanted) {
    const abiPath = join(dir, file);
    if (!(await exists(abiPath))) {
      missing.push(service === null ? file : `${file} (service "${service}")`);
      continue;
    }
    units.push({ service, abiPath, ...await readJson(abiPath) });
  }
  if (missing.length > 0) {
    problems.push({
      severity: "error",
      message: `ABI files named in ${MANIFEST} are missing from ${dir}: ${missing.join(", ")}. ` +
        `Build the app (or copy its ABI files there) and run check again.`,
    });
  }
  return {
    kind: "bundle",
    package: pkg ?? guessPackage(manifestPath),
    packageAssumed: pkg === null,
    serviceCount: services.length,
    units,
    problems,
    guide: await bundleGuide(manifest, dir),
  };
}

/** The bundle's guide: `metadata.guide` when it is text, else GUIDE.md beside the manifest. */
async function bundleGuide(
  manifest: Record<string, unknown>,
  dir: string,
): Promise<BundleInput["guide"]> {
  const inline = record(manifest.metadata).guide;
  if (typeof inline === "string") return { text: inline, source: `${MANIFEST} metadata.guide` };
  const file = join(dir, GUIDE);
  try {
    return { text: await Deno.readTextFile(file), source: file };
  } catch {
    return null;
  }
}

function abiFile(value: unknown): string | null {
  const path = record(value).path;
  return typeof path === "string" && path.trim() !== "" ? path.trim() : null;
}

function looksLikeBundleManifest(json: unknown): boolean {
  const obj = record(json);
  return obj.schema_version === undefined &&
    (Array.isArray(obj.services) || (typeof obj.abi === "object" && obj.abi !== null));
}

/**
 * The app name a bare ABI's tools are previewed under: its file name (`kv-store.json`, `registry-abi.json`),
 * or, for a generic one (`abi.json`), the nearest directory that is not a build or layout folder.
 */
export function guessPackage(path: string): string {
  const base = basename(path).replace(/\.json$/i, "").replace(/\.expected$/i, "")
    .replace(/[-_.]?abi$/i, "").replace(/^abi(?:[-_.]|$)/i, "");
  if (base !== "" && base.toLowerCase() !== "manifest") return base;
  let dir = dirname(path);
  for (let i = 0; i < 8; i++) {
    const name = basename(dir);
    if (name === "" || name === "." || name === ".." || dir === dirname(dir)) break;
    if (!GENERIC_DIRS.has(name.toLowerCase())) return name;
    dir = dirname(dir);
  }
  return "app";
}

async function readJson(path: string): Promise<{ json: unknown; error: string | null }> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    return { json: null, error: `Cannot read "${path}": ${reason(error)}` };
  }
  try {
    return { json: JSON.parse(text), error: null };
  } catch (error) {
    return { json: null, error: `"${path}" is not valid JSON: ${(error as Error).message}.` };
  }
}

function failed(path: string, message: string): BundleInput {
  return {
    kind: "abi",
    package: guessPackage(path),
    packageAssumed: true,
    serviceCount: 0,
    units: [],
    problems: [{ severity: "error", message }],
    guide: null,
  };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

function reason(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file or directory.";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied.";
  const text = (error as Error).message ?? String(error);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
