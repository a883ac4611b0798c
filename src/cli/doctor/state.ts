// The `doctor` section about the state directory: whether the server could start in it (the handle key) and
// whether it and its files are owner-only (0700 / 0600). Windows does not enforce these modes; the report says so.

import { join } from "path";
import { describeError } from "../../answer/errors.ts";
import type { DoctorLine, DoctorSection } from "./report.ts";
import { plural } from "../report.ts";

/** What each file of the state directory is for, by name. */
function roleOf(name: string): string {
  if (name === "handle.key") return "app-handle key";
  if (name === "agent.json") return "desktop app handoff";
  if (/^tokens-.*\.json\.lock$/.test(name)) return "refresh lock";
  if (/^tokens-.*\.json$/.test(name)) return "cached tokens";
  return "";
}

/**
 * Reports the state directory: a failed start (e.g. an unreadable handle key) fails; a directory or file that
 * other users can read is a warning with the command that fixes it.
 */
export async function stateDirSection(
  dir: string,
  startError: unknown,
  os: typeof Deno.build.os = Deno.build.os,
): Promise<DoctorSection> {
  const lines: DoctorLine[] = [];
  if (startError !== null) {
    lines.push({
      status: "fail",
      label: "start",
      detail: `the server cannot start with this state directory: ${describeError(startError)}`,
    });
  }
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (error) {
    lines.push({
      status: "fail",
      label: "directory",
      detail: `cannot read ${dir}: ${describeError(error)}. Set CALIMERO_MCP_STATE_DIR or ` +
        "--state-dir to a writable directory.",
    });
    return { title: "State directory", lines };
  }
  const windows = os === "windows";
  lines.push(modeLine("directory", dir, info.mode, 0o700, windows, `chmod 700 "${dir}"`));
  if (windows) {
    lines.push({
      status: "info",
      label: "modes",
      detail: "file modes are not enforced on Windows; the directory's ACL decides who can read it",
    });
  }
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) if (entry.isFile) names.push(entry.name);
  } catch (error) {
    lines.push({ status: "warn", label: "files", detail: `cannot list: ${describeError(error)}` });
  }
  names.sort();
  // Kept ABIs are one line (a loose one is named); a temp file is a write in progress, never listed.
  let abis = 0;
  for (const name of names) {
    if (/\.tmp\b/.test(name)) continue;
    const path = join(dir, name);
    let mode: number | null = null;
    try {
      mode = (await Deno.stat(path)).mode;
    } catch {
      mode = null;
    }
    const line = modeLine(name, path, mode, 0o600, windows, `chmod 600 "${path}"`);
    if (/^abi-[0-9a-f]+\.json$/.test(name)) {
      abis++;
      if (line.status !== "ok") lines.push(line);
      continue;
    }
    const role = roleOf(name);
    lines.push(role ? { ...line, detail: `${line.detail} (${role})` } : line);
  }
  if (abis > 0) {
    lines.push({
      status: "ok",
      label: "kept ABIs",
      detail: `${plural(abis, "app ABI")} kept from the node (so a restart reads none), owner-only`,
    });
  }
  return { title: "State directory", lines };
}

function modeLine(
  label: string,
  path: string,
  mode: number | null,
  wanted: number,
  windows: boolean,
  fix: string,
): DoctorLine {
  const shown = label === "directory" ? `${path} ` : "";
  if (windows || mode === null) return { status: "ok", label, detail: `${shown}present`.trim() };
  const bits = mode & 0o777;
  const octal = bits.toString(8).padStart(4, "0");
  if ((bits & 0o077) === 0) return { status: "ok", label, detail: `${shown}${octal}` };
  return {
    status: "warn",
    label,
    detail: `${shown}${octal}: other users can access it (expected ${
      wanted.toString(8).padStart(4, "0")
    }); run ${fix}`,
  };
}
