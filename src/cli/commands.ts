// The terminal sub-commands `doctor` and `check`: run, print the report to stdout (text, or JSON with `--json`)
// and give the exit code. main.ts imports this module only when one of them is asked for.

import type { Config } from "../config/config.ts";
import { log, type LogLevel, setLogLevel } from "../lib/log.ts";
import { checkPath } from "./check/check.ts";
import { renderCheck } from "./check/render.ts";
import { doctorSecrets, runDoctor } from "./doctor/doctor.ts";
import { renderDoctor } from "./doctor/render.ts";
import { scrubSecrets, stdoutStyle, writeStdout } from "./report.ts";

const CHECK_USAGE = "mero-mcp check <abi.json | bundle dir> [--guide GUIDE.md] [--json]";

/** `mero-mcp check`: 0 when the ABI is valid, 1 when it is not (or cannot be read), 2 for a usage error. */
export async function runCheckCommand(config: Config): Promise<number> {
  if (config.args.length !== 1) {
    log.error(
      config.args.length === 0
        ? `check needs the path of an ABI file or a bundle directory. Usage: ${CHECK_USAGE}`
        : `check takes one path, got ${config.args.length}: ${
          config.args.map((a) => `"${a}"`).join(", ")
        }. Usage: ${CHECK_USAGE}`,
    );
    return 2;
  }
  const report = await checkPath(config.args[0], {
    guideFile: config.guideFile,
    marksFile: config.marksFile,
  });
  writeStdout(
    config.json ? JSON.stringify(report, null, 2) + "\n" : renderCheck(report, stdoutStyle()),
  );
  return report.valid ? 0 : 1;
}

/**
 * `mero-mcp doctor`: 0 when the server would work, 1 otherwise. Runs in the main process with its permissions.
 * The report states its own findings, so the server's warnings on stderr are kept quiet unless `--log debug`.
 */
export async function runDoctorCommand(config: Config): Promise<number> {
  const quiet: LogLevel = config.logLevel === "debug" ? "debug" : "error";
  setLogLevel(quiet);
  const report = await runDoctor(config);
  const text = config.json
    ? JSON.stringify(report, null, 2) + "\n"
    : renderDoctor(report, stdoutStyle());
  writeStdout(scrubSecrets(text, await doctorSecrets(config)));
  return report.works ? 0 : 1;
}
