// Secret stripping for URLs: userinfo, query strings and fragments can carry credentials, so none of
// them may reach an error message or a log line. Errs on the side of dropping too much.

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

/** Redacts every URL that appears inside a free text (an error message, a response body). */
export function redactText(text: string): string {
  return text.replace(URL_IN_TEXT, (match) => {
    const trailing = match.match(TRAILING_PUNCTUATION)?.[0] ?? "";
    return redactUrl(match.slice(0, match.length - trailing.length)) + trailing;
  });
}
