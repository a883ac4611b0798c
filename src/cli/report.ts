// Terminal reports for `doctor` and `check`: status tags, colour (only on a terminal), secret scrubbing and
// writing to stdout. These commands are for people at a terminal, so stdout carries the report, not MCP.

import { escapeControls } from "../lib/text.ts";

/** How a report line is judged: `fail` makes the command exit 1, the rest are information. */
export type Status = "ok" | "warn" | "fail" | "skip" | "info";

/**
 * Rendering options: colour only when stdout is a terminal (and NO_COLOR is unset); `width` wraps long details
 * to the terminal's width (null when piped, so the output stays one finding per line for grep).
 */
export interface Style {
  color: boolean;
  width?: number | null;
}

const CODES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const;

/** A colour or weight for {@link paint}. */
export type Paint = keyof typeof CODES;

/** Wraps `text` in an ANSI style when the style allows colour; returns it unchanged otherwise. */
export function paint(style: Style, how: Paint, text: string): string {
  if (!style.color || text === "") return text;
  const [on, off] = CODES[how];
  return `\x1b[${on}m${text}\x1b[${off}m`;
}

const TAGS: Record<Status, { text: string; paint: Paint }> = {
  ok: { text: "ok", paint: "green" },
  warn: { text: "warn", paint: "yellow" },
  fail: { text: "FAIL", paint: "red" },
  skip: { text: "-", paint: "dim" },
  info: { text: "·", paint: "cyan" },
};

/** The four-column status tag that starts a report line (`ok  `, `warn`, `FAIL`, `-   `, `·   `). */
function statusTag(style: Style, status: Status): string {
  const tag = TAGS[status];
  return paint(style, tag.paint, tag.text.padEnd(4));
}

/** One report line: indent, status tag, a label padded to `width`, then the detail (continuation lines indented). */
export function statusLine(
  style: Style,
  status: Status,
  label: string,
  detail: string,
  width: number,
): string {
  // Labels and details carry node and app data: escaped, they cannot drive the terminal or forge a line.
  const head = `  ${statusTag(style, status)} ${escapeControls(label).padEnd(width)}`;
  const indent = 2 + 4 + 1 + width + 1;
  const pad = " ".repeat(indent);
  const room = style.width ? Math.max(30, style.width - indent) : null;
  const [first, ...rest] = detail.split("\n").map(escapeControls)
    .flatMap((l) => room === null ? [l] : wrap(l, room));
  return [`${head} ${first}`.trimEnd(), ...rest.map((l) => `${pad}${l}`)].join("\n");
}

/** Splits `text` into lines of at most `width` characters at spaces (a longer word gets a line of its own). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/** `1 tool`, `2 tools`: a count with its noun (plural by adding `s`). */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** Whether this process should colour its stdout: a terminal, and `NO_COLOR` not set. */
export function stdoutStyle(): Style {
  let terminal = false;
  try {
    terminal = Deno.stdout.isTerminal();
  } catch {
    terminal = false;
  }
  let width: number | null = null;
  if (terminal) {
    try {
      width = Deno.consoleSize().columns;
    } catch {
      width = null;
    }
  }
  return { color: terminal && !Deno.noColor, width };
}

/** Shortest secret worth scrubbing: replacing one- to three-character strings would garble the report. */
const MIN_SECRET_LENGTH = 4;

/**
 * Replaces every occurrence of each secret (password, tokens) with `[redacted]`. A last line of defence: the
 * reports are built not to contain secrets, and this makes sure of it even if a node echoes one back.
 */
export function scrubSecrets(
  text: string,
  secrets: readonly (string | null | undefined)[],
): string {
  let out = text;
  const usable = secrets.filter((s): s is string => typeof s === "string")
    .filter((s) => s.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of usable) out = out.split(secret).join("[redacted]");
  return out;
}

/** Writes all of `text` to stdout (synchronously, so a following exit loses nothing). */
export function writeStdout(text: string): void {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}
