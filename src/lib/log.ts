// The one logger: stderr only, prefixed `[mero-mcp] `, filtered by level.
// stdout belongs to the MCP protocol, so nothing here ever writes there.

import { redactText } from "./redact.ts";
import { escapeControls } from "./text.ts";

/** Log levels, most severe first. */
export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevel = typeof LOG_LEVELS[number];

let threshold: number = LOG_LEVELS.indexOf("info");
const encoder = new TextEncoder();

/** Sets the most verbose level that is still written. */
export function setLogLevel(level: LogLevel): void {
  threshold = LOG_LEVELS.indexOf(level);
}

function write(level: LogLevel, message: string): void {
  if (LOG_LEVELS.indexOf(level) > threshold) return;
  const tag = level === "info" ? "" : `${level}: `;
  // One line each, escaped: node or app text in a message can neither drive a terminal nor start a line of ours.
  Deno.stderr.writeSync(
    encoder.encode(`[mero-mcp] ${tag}${escapeControls(redactText(message))}\n`),
  );
}

/** Writes diagnostics to stderr. Callers must never pass a secret; known ones and URLs' secrets are masked anyway. */
export const log = {
  error: (message: string): void => write("error", message),
  warn: (message: string): void => write("warn", message),
  info: (message: string): void => write("info", message),
  debug: (message: string): void => write("debug", message),
};
