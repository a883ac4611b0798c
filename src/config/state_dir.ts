// Preparing the state directory before the worker starts (main thread only). The worker's sandbox checks paths
// as strings and follows symlinks, so the boundary holds only if the directory itself is sound: owner-only, not
// the home directory or the node home (which holds each node's private key), and free of symbolic links.

import { isAbsolute, join, relative } from "path";
import { ConfigError } from "./config.ts";
import { log } from "../lib/log.ts";

/** The most entries looked at for symlinks; a state dir holds a handful of files. */
const MAX_ENTRIES = 10_000;

/** Files the server itself writes: a symlink in their place is removed (they are recreated as needed). */
const OURS = /^(handle\.key|(tokens-[0-9a-f]+|abi-[0-9a-f]{32})\.json(\.lock|\.tmp-.*)?)$/;

/**
 * Creates the state dir owner-only (0700), or checks an existing one: never the home directory, the node home, or
 * a directory inside or around it; never open to others (an existing one holding only our files is tightened,
 * with a warning; any other is refused with the command to run); no symbolic links inside (our own files' links
 * are removed, any other is refused).
 */
export async function prepareStateDir(
  dir: string,
  homes: { home: string | null; nodeHome: string },
  isWindows = Deno.build.os === "windows",
): Promise<void> {
  const existed = await exists(dir);
  try {
    if (!existed) await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(
      `Cannot create the state directory "${dir}": ${(error as Error).message}. ` +
        "Set CALIMERO_MCP_STATE_DIR or --state-dir to a writable directory.",
      1,
    );
  }
  const real = await Deno.realPath(dir);
  const fix = "Point CALIMERO_MCP_STATE_DIR (or --state-dir) at a directory of its own, such as " +
    "~/.config/calimero/mcp.";
  const home = await realOrNull(homes.home);
  if (home !== null && within(home, real)) {
    const how = home === real ? "is" : "contains";
    throw new ConfigError(`The state directory "${dir}" ${how} your home directory. ${fix}`, 1);
  }
  // The node home holds each node's private key: the worker must not be able to read any of it.
  const nodeHome = await realOrNull(homes.nodeHome);
  if (nodeHome !== null && (within(real, nodeHome) || within(nodeHome, real))) {
    const how = real === nodeHome ? "is" : within(nodeHome, real) ? "contains" : "lies inside";
    throw new ConfigError(
      `The state directory "${dir}" ${how} the node home ("${homes.nodeHome}"). ${fix}`,
      1,
    );
  }
  if (!isWindows) {
    if (!existed) await Deno.chmod(dir, 0o700);
    const mode = (await Deno.stat(dir)).mode! & 0o777;
    if (mode & 0o077 && await holdsOnlyOurs(dir)) {
      // A state dir with nothing but our files (the desktop app may have made it, with its own mode) is ours to
      // tighten; anything else in it means someone else's directory, which is left as it is.
      await Deno.chmod(dir, 0o700);
      log.warn(
        `The state directory "${dir}" was open to other users (mode ${
          mode.toString(8)
        }); it is 0700 now.`,
      );
    } else if (mode & 0o077) {
      throw new ConfigError(
        `The state directory "${dir}" is open to other users (mode ${
          mode.toString(8)
        }); it holds tokens and ` +
          `the app-handle key. Run "chmod 700 ${dir}" if it is only for mero-mcp. ${fix}`,
        1,
      );
    }
  }
  await refuseSymlinks(dir);
}

/** Whether `dir` holds nothing but files mero-mcp or the desktop app write there (or nothing at all). */
async function holdsOnlyOurs(dir: string): Promise<boolean> {
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !(OURS.test(entry.name) || entry.name === "agent.json")) return false;
  }
  return true;
}

/** Removes our own files' symlinks and refuses any other, anywhere below `dir`. */
async function refuseSymlinks(dir: string): Promise<void> {
  let seen = 0;
  const walk = async (folder: string): Promise<void> => {
    for await (const entry of Deno.readDir(folder)) {
      if (++seen > MAX_ENTRIES) return;
      const path = join(folder, entry.name);
      if (entry.isSymlink) {
        if (folder === dir && OURS.test(entry.name)) {
          await Deno.remove(path);
          continue;
        }
        throw new ConfigError(
          `"${path}" in the state directory is a symbolic link; the server does not follow links there (they ` +
            "would lead its sandbox outside). Remove it.",
          1,
        );
      }
      if (entry.isDirectory) await walk(path);
    }
  };
  await walk(dir);
}

/** Whether `path` is `parent` or lies below it (both real, absolute paths). */
function within(path: string, parent: string): boolean {
  const rel = relative(parent, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

async function realOrNull(path: string | null): Promise<string | null> {
  if (path === null) return null;
  try {
    return await Deno.realPath(path);
  } catch {
    return null;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
