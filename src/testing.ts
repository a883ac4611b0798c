// Helpers for the unit tests beside the modules (never imported by the product).

/** Runs `fn` with stderr captured (the logger writes there synchronously); returns what was written. */
export async function captureStderr(fn: () => Promise<unknown>): Promise<string> {
  const original = Deno.stderr.writeSync;
  let text = "";
  Deno.stderr.writeSync = (bytes: Uint8Array) => {
    text += new TextDecoder().decode(bytes);
    return bytes.length;
  };
  try {
    await fn();
  } finally {
    Deno.stderr.writeSync = original;
  }
  return text;
}
