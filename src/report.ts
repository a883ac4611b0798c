// Terminal reports for `doctor` and `check`: status tags, colour (only on a terminal), secret scrubbing and
// writing to stdout. These commands are for people at a terminal, so stdout carries the report, not MCP.

/** How a report line is judged: `fail` makes the command exit 1, the rest are information. */
export type Status = "ok" | "warn" | "fail" | "skip" | "info";

/** Rendering options: colour only when stdout is a terminal (and NO_COLOR is unset). */
export interface Style {
  color: boolean;
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
export function statusTag(style: Style, status: Status): string {
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
  const head = `  ${statusTag(style, status)} ${label.padEnd(width)}`;
  const pad = " ".repeat(2 + 4 + 1 + width + 1);
  const [first, ...rest] = detail.split("\n");
  return [`${head} ${first}`.trimEnd(), ...rest.map((l) => `${pad}${l}`)].join("\n");
}

/** Whether this process should colour its stdout: a terminal, and `NO_COLOR` not set. */
export function stdoutStyle(): Style {
  let terminal = false;
  try {
    terminal = Deno.stdout.isTerminal();
  } catch {
    terminal = false;
  }
  return { color: terminal && !Deno.noColor };
}

/** Removes ANSI styles (for tests and for measuring). */
export function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
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
