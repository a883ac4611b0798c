// Third-party text (app authors' names, docs and guides; what a node answers) on its way to an agent, a log or a
// terminal: control characters that could redraw a terminal, write its clipboard (OSC 52), reorder text (bidi
// overrides) or forge a line of our own framing are taken out, and lengths are bounded.

/** The bidi and invisible formatting marks, which reorder or hide text. */
const FORMAT_MARKS = "\\u061c\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2069\\ufeff";
/** C0 controls but tab and newline, DEL, C1 controls, and the formatting marks. */
const CONTROLS = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${FORMAT_MARKS}]`, "g");
/** The same with tab and newline: for text that must stay on one line. */
const ALL_CONTROLS = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${FORMAT_MARKS}]`, "g");

/** The text without control characters (tab and newline kept): for multi-line text such as a guide. */
export function stripControls(text: string): string {
  return text.replace(CONTROLS, "");
}

/** One line of at most `max` characters: controls removed, every run of whitespace one space, "…" when cut. */
export function oneLine(text: string, max: number): string {
  const line = stripControls(text).replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * For a terminal or a log line: every control character shown as an escape (`\x1b`, `\u202e`), newlines too, so
 * node or app data can neither drive the terminal nor start a line that looks like ours.
 */
export function escapeControls(text: string): string {
  return text.replace(ALL_CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/**
 * Invisible and direction-changing characters: every format character (zero-width, bidi overrides and isolates,
 * Unicode tag characters U+E0000–U+E007F, soft hyphen), private-use characters and lone surrogates. Well-formed emoji
 * sequences keep theirs: a zero-width joiner between pictographs, and the tag characters of a subdivision flag.
 */
const HIDDEN =
  /\p{Extended_Pictographic}\uFE0F?(?:\u200D\p{Extended_Pictographic}\uFE0F?)+|\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}|[\p{Cf}\p{Co}\p{Cs}]/gu;
const LONE_HIDDEN = /^[\p{Cf}\p{Co}\p{Cs}]$/u;

/**
 * Text from another party (an app's results and events, a guide, a node's message) with its invisible and
 * direction-changing characters shown as `\uXXXX` escapes (UTF-16 units), so none reaches the model raw. Inside a
 * JSON string literal the escape is JSON's own: the text stays valid JSON and parses back to the same value.
 */
export function escapeHidden(text: string): string {
  return text.replace(HIDDEN, (match) => {
    if (!LONE_HIDDEN.test(match)) return match; // an emoji sequence, kept whole
    let escaped = "";
    for (let i = 0; i < match.length; i++) {
      escaped += `\\u${match.charCodeAt(i).toString(16).padStart(4, "0")}`;
    }
    return escaped;
  });
}
