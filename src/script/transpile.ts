// A script as the agent wrote it (TypeScript, the body of an async function) → the JavaScript the runner evaluates.
// This runs in the runner process, never in the server: a stripper can be driven into exponential backtracking by a
// few hundred characters (nested `<T>(` assertions), and there the script's wall time bounds it and a crash ends only
// that process. Types are stripped, not checked: a type mistake shows as the runtime error it causes.

import { transform } from "sucrase";

/** The script as `async function (calimero, console) { … }` in JavaScript, or why it does not parse. */
export function stripTypes(code: string): { js: string } | { error: string } {
  try {
    const { code: js } = transform(`(async function (calimero, console) {\n${code}\n})`, {
      transforms: ["typescript"],
      disableESTransforms: true,
    });
    return { js: js.trim().replace(/;$/, "") };
  } catch (error) {
    // sucrase's positions count the wrapper's first line: the script's own line is one less.
    const message = (error as Error).message.replace(
      /\((\d+):(\d+)\)/,
      (_, line, column) => `(line ${Number(line) - 1}, column ${Number(column) + 1})`,
    );
    return { error: `The script does not parse: ${message}` };
  }
}
