#!/usr/bin/env node
// The npm entry of mero-mcp: finds the executable that the platform package for this OS and CPU installed
// (@calimero-network/mero-mcp-<os>-<arch>, an optional dependency), then runs it with the same arguments and the
// same stdio. It writes nothing to stdout (stdout is the MCP protocol's), passes signals on, and exits as the
// executable did. MERO_MCP_BINARY names another executable to run instead; one that is this launcher (directly, by a
// link, or through a launcher it starts) is refused, since it would start itself without end.
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

/** Set for the executable the launcher starts: a launcher that finds it set was started by a launcher. */
const LAUNCHED = "MERO_MCP_LAUNCHED_BY";

/** The platforms a package is published for: `${process.platform}-${process.arch}`. */
const PLATFORMS = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-x64"];
const RELEASES = "https://github.com/calimero-network/mero-mcp/releases";

/** The executable to run, or the one line that says why there is none. */
function findExecutable() {
  const override = process.env.MERO_MCP_BINARY;
  if (override) {
    if (process.env[LAUNCHED] !== undefined || sameFile(override, __filename)) {
      return {
        problem:
          `mero-mcp: MERO_MCP_BINARY (${override}) is this npm launcher, which would start itself ` +
          "without end. Point it at the mero-mcp executable (a release binary), or unset it.",
      };
    }
    return { path: override };
  }
  const platform = `${process.platform}-${process.arch}`;
  const name = `@calimero-network/mero-mcp-${platform}`;
  if (!PLATFORMS.includes(platform)) {
    return {
      problem: `mero-mcp has no build for ${platform} (there are ${PLATFORMS.join(", ")}); ` +
        `build it from source (${RELEASES}) and set MERO_MCP_BINARY to its path.`,
    };
  }
  try {
    const dir = path.dirname(require.resolve(`${name}/package.json`));
    const exe = process.platform === "win32" ? "mero-mcp.exe" : "mero-mcp";
    return { path: path.join(dir, "bin", exe) };
  } catch {
    return {
      problem: `mero-mcp: the package ${name} for ${platform} is not installed (was npm run with ` +
        `--no-optional or --omit=optional?). Install it, or download the binary from ${RELEASES} ` +
        "and set MERO_MCP_BINARY to its path.",
    };
  }
}

/** Whether two paths name the same file (links followed); false when either cannot be read. */
function sameFile(a, b) {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

function main() {
  const found = findExecutable();
  if (found.problem) {
    process.stderr.write(`${found.problem}\n`);
    process.exit(1);
  }
  const child = spawn(found.path, process.argv.slice(2), {
    stdio: "inherit",
    windowsHide: true,
    env: { ...process.env, [LAUNCHED]: String(process.pid) },
  });
  // Every signal a client or a terminal sends to stop or poke the server reaches it (SIGKILL cannot be caught: the
  // server then exits when its client closes stdin).
  const forwarded = process.platform === "win32"
    ? ["SIGINT", "SIGTERM", "SIGHUP"]
    : ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"];
  for (const signal of forwarded) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on("error", (error) => {
    process.stderr.write(`mero-mcp: cannot run ${found.path}: ${error.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      // End the same way: a client that watches for the signal sees it.
      for (const name of forwarded) process.removeAllListeners(name);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

main();
