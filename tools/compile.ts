// `deno task compile [--target <triple>|all]`: builds the mero-mcp executable with the server permission set,
// the worker module included, and worker options enabled — the same flags the tests run with.

import { WORKER_MODULE } from "../main.ts";
import { V8_FLAGS } from "./run_args.ts";

/** The worker module as a path from the repository root: `deno compile` bundles it only when told to. */
export const WORKER_INCLUDE = WORKER_MODULE.href.slice(new URL("../", import.meta.url).href.length);

const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

function parseTargets(args: string[]): (string | null)[] {
  const index = args.indexOf("--target");
  if (index === -1) return [null];
  const value = args[index + 1];
  if (value === "all") return [...TARGETS];
  if (!value || !(TARGETS as readonly string[]).includes(value)) {
    throw new Error(`Unknown target "${value}". Accepted: ${TARGETS.join(", ")}, all.`);
  }
  return [value];
}

/** The `deno compile` arguments for one target (null = this machine). */
export function compileArgs(target: string | null): string[] {
  const suffix = target ? `-${target}` : "";
  const exe = target?.includes("windows") || (!target && Deno.build.os === "windows") ? ".exe" : "";
  return [
    "compile",
    "-P=server",
    "--unstable-worker-options",
    `--v8-flags=${V8_FLAGS.join(",")}`,
    "--include",
    WORKER_INCLUDE,
    ...(target ? ["--target", target] : []),
    "--output",
    `dist/mero-mcp${suffix}${exe}`,
    "main.ts",
  ];
}

if (import.meta.main) {
  for (const target of parseTargets(Deno.args)) {
    const args = compileArgs(target);
    const status = await new Deno.Command(Deno.execPath(), {
      args,
      stdout: "inherit",
      stderr: "inherit",
    })
      .spawn().status;
    if (!status.success) Deno.exit(status.code);
  }
}
