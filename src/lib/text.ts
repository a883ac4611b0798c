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
 * What never reaches a person or a model raw. Every default-ignorable code point (zero-width characters, bidi marks
 * and isolates, variation selectors, Hangul fillers, the combining grapheme joiner, Unicode tag characters, soft
 * hyphen), every other format character, private-use, unassigned and lone surrogate code points, controls C0 and C1
 * (U+0085 among them) but tab and newline, the line and paragraph separators U+2028 and U+2029, and the blank
 * braille pattern U+2800. Kept whole, because they are what they look like: a CR before a newline, an emoji with its
 * presentation selector, a keycap, an emoji joined by zero-width joiners, and a subdivision flag (its 2–7 tag
 * letters and digits, no more: a longer run is a message in tags).
 */
const SHOWN_ESCAPED = new RegExp(
  [
    String.raw`(?<keep>\r\n`,
    String.raw`[0-9#*]\uFE0F\u20E3`,
    String
      .raw`\p{Extended_Pictographic}[\uFE0E\uFE0F]?(?:\u200D\p{Extended_Pictographic}[\uFE0E\uFE0F]?)+`,
    String.raw`\p{Extended_Pictographic}[\uFE0E\uFE0F]`,
    String.raw`\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{2,7}\u{E007F})`,
    String
      .raw`[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\u2800\u0000-\u0008\u000b-\u001f\u007f-\u009f]`,
  ].join("|"),
  "gu",
);

/**
 * Text from another party (an app's results and events, a guide, an ABI's docs, a node's message) with every
 * character that hides, reorders or forges text shown as `\uXXXX` escapes (UTF-16 units), so none reaches the
 * model or the person raw. The one escaping of mero-mcp: applied at the boundary to every tool result, list entry,
 * question and error. Inside a JSON string literal the escape is JSON's own: the text stays valid JSON and parses
 * back to the same value.
 */
export function escapeHidden(text: string): string {
  return text.replace(SHOWN_ESCAPED, (match, keep: string | undefined) => {
    if (keep !== undefined) return match;
    let escaped = "";
    for (let i = 0; i < match.length; i++) {
      escaped += `\\u${match.charCodeAt(i).toString(16).padStart(4, "0")}`;
    }
    return escaped;
  });
}

/**
 * A field that our own lines quote (a package, a version, an alias) as one line: every control, line break and
 * hidden character shown as an escape, so a name can neither end our line nor start one that passes for ours.
 */
export function inline(text: string): string {
  return escapeHidden(text).replace(/[\t\n]/g, (c) => (c === "\n" ? "\\n" : "\\t"));
}
