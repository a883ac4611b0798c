// A script as the agent wrote it (TypeScript, the body of an async function) → the JavaScript the runner evaluates.
// Types are stripped, not checked. Measured here: sucrase strips a 4 KB script in 1.6 ms; `deno check` of one script
// against an app's declarations took 1.5–1.8 s (the TypeScript checker and its libraries), more than a script's
// usual whole run. A type mistake shows as the runtime error it causes, with the call that failed in the record.

/** The longest script accepted, in characters. */
export const MAX_CODE_CHARS = 20_000;

/**
 * The script as `async function (calimero, console) { … }` in JavaScript, or why it cannot run. sucrase is loaded on
 * the first script, not at start-up: a server that never runs one does not pay for it (B1).
 */
export async function scriptFunction(code: string): Promise<{ js: string } | { error: string }> {
  if (code.length > MAX_CODE_CHARS) {
    return {
      error:
        `The script is ${code.length} characters; at most ${MAX_CODE_CHARS} are run. Do less per script, or move data through calls instead of the code.`,
    };
  }
  const { transform } = await import("sucrase");
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
