// Secret stripping: userinfo, query strings and fragments of URLs can carry credentials, and so can a node's
// answer that echoes the token it was sent; none of them may reach an error message, a tool result or a log
// line. Errs on the side of dropping too much.

const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i;
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
const TRAILING_PUNCTUATION = /[)\].,;:]+$/;

/**
 * Returns the URL without userinfo, query string or fragment
 * (`http://u:pw@h:1/x?token=abc` → `http://h:1/x`). Works on malformed URLs too, textually.
 */
export function redactUrl(url: string): string {
  const withoutUser = url.replace(USERINFO, "$1");
  const cut = withoutUser.search(/[?#]/);
  return cut === -1 ? withoutUser : withoutUser.slice(0, cut);
}

/** The secrets this process holds (configured token, password, tokens it obtained), longest first. */
let secrets: string[] = [];

/** The shortest value masked as a secret: shorter ones would mask ordinary words. */
const MIN_SECRET_LENGTH = 8;

/**
 * Adds a secret the process holds, so {@link redactText} masks it wherever it appears — in a node's answer that
 * echoes it, say. Values under 8 characters are not masked (they would hit ordinary text).
 */
export function addSecret(value: string | null | undefined): void {
  if (!value || value.length < MIN_SECRET_LENGTH || secrets.includes(value)) return;
  secrets = [...secrets, value].sort((a, b) => b.length - a.length);
}

/** Redacts every known secret and every URL that appears inside a free text (an error message, a body). */
export function redactText(text: string): string {
  for (const secret of secrets) {
    if (text.includes(secret)) text = text.replaceAll(secret, "[redacted]");
  }
  return text.replace(URL_IN_TEXT, (match) => {
    const trailing = match.match(TRAILING_PUNCTUATION)?.[0] ?? "";
    return redactUrl(match.slice(0, match.length - trailing.length)) + trailing;
  });
}
