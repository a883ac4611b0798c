// A person's marks on an app's methods: which are views, which cannot be undone. The ABI should say both, but apps
// built before ABIs marked views have every method taken for a write (hosts ask before each read, read-only mode
// hides them), and core's format has no `destructive` at all (crates/wasm-abi), so on a real node no app method is
// ever confirmed. The person running mero-mcp writes what the ABI leaves out in `<state dir>/app-marks.json`:
//
//   { "com.calimero.kv-store": { "views": ["get", "entries", "len"], "destructive": ["clear", "remove"] } }
//
// Read once at start; `mero-mcp check --marks <file> <abi>` checks a file against an app's ABI. A mark adds to what
// the ABI says and never removes an ABI's own `destructive`; a view mark is the person's word that the method only
// reads, so read-only mode runs it and nothing asks before it.

import type { AbiManifest } from "./abi_format.ts";

/** The file's name in the state directory. */
export const MARKS_FILE = "app-marks.json";
/** Larger than any honest marks file; a bigger one is refused rather than read. */
const MAX_MARKS_BYTES = 256 * 1024;
/** A package's marks. */
export interface AppMark {
  views: ReadonlySet<string>;
  destructive: ReadonlySet<string>;
}
/** Every package's marks. */
export type AppMarks = ReadonlyMap<string, AppMark>;

/** No marks. */
export const NO_MARKS: AppMarks = new Map();

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
    for (const key of Object.keys(entry)) {
      if (key !== "views" && key !== "destructive") {
        problems.push(`${pkg}: unknown key "${key}" (views and destructive are read)`);
      }
    }
    const both = [...lists.views].filter((m) => lists.destructive.has(m));
    if (both.length > 0) {
      problems.push(`${pkg}: ${both.join(", ")} marked both a view and destructive`);
    }
    marks.set(pkg, { views: lists.views, destructive: lists.destructive });
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

const marked = new WeakMap<AbiManifest, { mark: AppMark; manifest: AbiManifest }>();

/**
 * The manifest with a package's marks applied: a view mark makes the method read-only, a destructive mark makes it
 * destructive (an ABI's own destructive stays). The same manifest and mark give the same object back, so the catalog
 * sees nothing changed between polls.
 */
export function withMarks(manifest: AbiManifest, mark: AppMark | undefined): AbiManifest {
  if (mark === undefined) return manifest;
  const kept = marked.get(manifest);
  if (kept && kept.mark === mark) return kept.manifest;
  const result: AbiManifest = {
    ...manifest,
    methods: manifest.methods.map((method) => {
      const view = mark.views.has(method.name);
      const destructive = mark.destructive.has(method.name);
      if (!view && !destructive) return method;
      return {
        ...method,
        ...(view ? { intent: "read_only" as const } : {}),
        ...(destructive
          ? { destructive: true, intent: method.intent === "read_only" ? undefined : method.intent }
          : {}),
      };
    }),
  };
  marked.set(manifest, { mark, manifest: result });
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
