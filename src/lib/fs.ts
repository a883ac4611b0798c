// Small file helpers shared by the modules that own files in the state directory and the terminal commands.

/** Writes every byte (a single `write` may write fewer). */
export async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/** Whether something exists at `path` (any error, a missing permission included, reads as no). */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
