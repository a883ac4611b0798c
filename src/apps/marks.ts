// A person's marks on an app's methods: which are views, which cannot be undone. The ABI should say both, but apps
// built before ABIs marked views have every method taken for a write (hosts ask before each read, read-only mode
// hides them), and core's format has no `destructive` at all (crates/wasm-abi), so on a real node no app method is
// ever confirmed. The person running mero-mcp writes what the ABI leaves out in `<state dir>/app-marks.json`:
//
//   { "com.calimero.kv-store": { "signer": "<signer id>", "version": "1.0.0",
//                                "views": ["get", "entries", "len"], "destructive": ["clear", "remove"] } }
//
// Read once at start; `mero-mcp check --marks <file> <abi>` checks a file against an app's ABI. A destructive mark
// only adds a question, so it applies to every app of the package. A view mark takes one away (read-only mode runs
// the method, nothing asks before it), so it applies only to the signer and version it names, and never to a method
// the ABI itself declares writing where the ABI tells views apart, nor to one the ABI marks destructive: an upgrade,
// or another signer's app of the same package, is not the app the person vouched for (hostile-input-4 E1).

import type { AbiManifest, AbiMethod } from "./abi_format.ts";

/** The file's name in the state directory. */
export const MARKS_FILE = "app-marks.json";
/** Larger than any honest marks file; a bigger one is refused rather than read. */
const MAX_MARKS_BYTES = 256 * 1024;
/** A package's marks. */
export interface AppMark {
  views: ReadonlySet<string>;
  destructive: ReadonlySet<string>;
  /** The signer and version the view marks were written for (null: not named, so no view mark applies). */
  signer: string | null;
  version: string | null;
}

/** The installed app a mark is laid on: who signed it and which version it is. */
export interface MarkedApp {
  signerId: string | null;
  version: string | null;
}
/** Every package's marks. */
export type AppMarks = ReadonlyMap<string, AppMark>;

/** No marks. */
export const NO_MARKS: AppMarks = new Map();

const ENTRY_KEYS = ["signer", "version", "views", "destructive"];

/** The marks of `text` (the file's JSON), or the problems that make it unusable, each one line. */
export function parseMarks(text: string): { marks: AppMarks; problems: string[] } {
  const problems: string[] = [];
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return { marks: NO_MARKS, problems: [`not JSON: ${(error as Error).message}`] };
  }
  if (document === null || typeof document !== "object" || Array.isArray(document)) {
    return { marks: NO_MARKS, problems: ["expected an object of packages"] };
  }
  const marks = new Map<string, AppMark>();
  for (const [pkg, entry] of Object.entries(document as Record<string, unknown>)) {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      problems.push(`${pkg}: expected {"views": [...], "destructive": [...]}`);
      continue;
    }
    const lists: Record<string, Set<string>> = {};
    for (const key of ["views", "destructive"]) {
      const value = (entry as Record<string, unknown>)[key] ?? [];
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v.length > 0)) {
        problems.push(`${pkg}.${key}: expected a list of method names`);
        lists[key] = new Set();
      } else lists[key] = new Set(value as string[]);
    }
    const binding: Record<string, string | null> = {};
    for (const key of ["signer", "version"]) {
      const value = (entry as Record<string, unknown>)[key] ?? null;
      if (value !== null && (typeof value !== "string" || value === "")) {
        problems.push(`${pkg}.${key}: expected the ${key} the marks were written for, as a string`);
      }
      binding[key] = typeof value === "string" && value !== "" ? value : null;
    }
    for (const key of Object.keys(entry)) {
      if (!ENTRY_KEYS.includes(key)) {
        problems.push(`${pkg}: unknown key "${key}" (${ENTRY_KEYS.join(", ")} are read)`);
      }
    }
    const both = [...lists.views].filter((m) => lists.destructive.has(m));
    if (both.length > 0) {
      problems.push(`${pkg}: ${both.join(", ")} marked both a view and destructive`);
    }
    marks.set(pkg, {
      views: lists.views,
      destructive: lists.destructive,
      signer: binding.signer,
      version: binding.version,
    });
  }
  return { marks, problems };
}

/** Reads `<stateDir>/app-marks.json`: no file is no marks; a file that is unusable is said, and not used. */
export async function readMarks(
  stateDir: string,
): Promise<{ marks: AppMarks; problems: string[]; path: string }> {
  const path = `${stateDir.replace(/[\\/]+$/, "")}/${MARKS_FILE}`;
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { marks: NO_MARKS, problems: [], path };
    return { marks: NO_MARKS, problems: [`cannot read it: ${(error as Error).message}`], path };
  }
  if (bytes.length > MAX_MARKS_BYTES) {
    return { marks: NO_MARKS, problems: [`larger than ${MAX_MARKS_BYTES} bytes`], path };
  }
  const parsed = parseMarks(new TextDecoder().decode(bytes));
  // Unusable as a whole when anything in it is wrong: half a person's marks would be worse than none said.
  return parsed.problems.length > 0
    ? { marks: NO_MARKS, problems: parsed.problems, path }
    : { ...parsed, path };
}

/** The names a package's marks give that its ABI does not have (a typo, or another version's method). */
export function unknownMarked(mark: AppMark, manifest: AbiManifest): string[] {
  const names = new Set(manifest.methods.map((m) => m.name));
  return [...mark.views, ...mark.destructive].filter((name) => !names.has(name));
}

/**
 * Why `mark`'s view marks do not apply to `app` at all (they name another signer or version, or none), or null. The
 * sentence names what the entry would need, so a person can vouch for this version once they have looked at it.
 */
export function viewBindingProblem(mark: AppMark, app: MarkedApp): string | null {
  const wanted = `"signer": "${app.signerId ?? ""}", "version": "${app.version ?? ""}"`;
  if (mark.signer === null || mark.version === null) {
    return app.signerId === null || app.version === null
      ? 'view marks apply only to the signer and version they name: add "signer" and "version" to the entry'
      : `view marks apply only to the signer and version they name: add ${wanted} once you have checked this version's methods`;
  }
  if (app.signerId === null || app.version === null) {
    return "view marks apply only to a signed app with a version, and this one has none";
  }
  if (mark.signer !== app.signerId) {
    return `the view marks were written for signer ${mark.signer}; this app is signed by ${app.signerId}`;
  }
  if (mark.version !== app.version) {
    return `the view marks were written for version ${mark.version}; ${app.version} is installed (check its methods, then set "version": "${app.version}")`;
  }
  return null;
}

/** Why the view mark on `method` is not applied to this ABI, or null: the ABI's own word wins where it has one. */
function viewRefusal(manifest: AbiManifest, method: AbiMethod): string | null {
  if (method.destructive === true) return "its ABI marks it destructive";
  if (method.intent !== "read_only" && manifest.methods.some((m) => m.intent === "read_only")) {
    return "its ABI tells views apart and declares it writing";
  }
  return null;
}

const marked = new WeakMap<AbiManifest, { mark: AppMark; key: string; manifest: AbiManifest }>();

/**
 * The manifest with a package's marks applied to `app`: a destructive mark makes the method destructive (an ABI's own
 * destructive stays); a view mark makes it read-only where it binds (see the module comment). What was not applied is
 * listed in `unappliedMarks`. The same manifest, mark and app give the same object back, so the catalog sees nothing
 * changed between polls.
 */
export function withMarks(
  manifest: AbiManifest,
  mark: AppMark | undefined,
  app: MarkedApp,
): AbiManifest {
  if (mark === undefined) return manifest;
  const key = `${app.signerId}\0${app.version}`;
  const kept = marked.get(manifest);
  if (kept && kept.mark === mark && kept.key === key) return kept.manifest;
  const unapplied: string[] = [];
  const binding = mark.views.size > 0 ? viewBindingProblem(mark, app) : null;
  if (binding !== null) unapplied.push(`${[...mark.views].join(", ")}: ${binding}`);
  const result: AbiManifest = {
    ...manifest,
    methods: manifest.methods.map((method) => {
      const destructive = mark.destructive.has(method.name);
      let view = binding === null && mark.views.has(method.name);
      const refusal = view ? viewRefusal(manifest, method) : null;
      if (refusal !== null) {
        unapplied.push(`${method.name}: ${refusal}`);
        view = false;
      }
      if (!view && !destructive) return method;
      return {
        ...method,
        ...(view ? { intent: "read_only" as const } : {}),
        ...(destructive
          ? { destructive: true, intent: method.intent === "read_only" ? undefined : method.intent }
          : {}),
      };
    }),
    ...(unapplied.length > 0 ? { unappliedMarks: unapplied } : {}),
  };
  marked.set(manifest, { mark, key, manifest: result });
  return result;
}

/** What an ABI leaves unsaid that matters to a person: no view marked, no destructive method marked. */
export function unmarked(manifest: AbiManifest): { noViews: boolean; noDestructive: boolean } {
  const methods = manifest.methods.filter((m) => m.name !== "init");
  return {
    noViews: methods.length > 0 && !methods.some((m) => m.intent === "read_only"),
    noDestructive: methods.length > 0 && !methods.some((m) => m.destructive === true),
  };
}
