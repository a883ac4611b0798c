// The one place node errors become user-facing text, and the predicates that tell the kinds apart. Every message
// passes through URL redaction before it leaves this module.

import { NodeHttpError, NodeRpcError, originOf, transportCause } from "../mero/mod.ts";
import { parseJson, stringifyJson } from "../lib/json.ts";
import { redactText, redactUrl } from "../lib/redact.ts";
import { readableIds } from "../primitives/node_ids.ts";
import { inline } from "../lib/text.ts";

/** URL redaction (userinfo, query and fragment can carry credentials), re-exported for log lines. */
export { redactText, redactUrl };

/** Where the user gets credentials from, quoted in every "authenticate again" message. */
const AUTH_SETTINGS =
  'set CALIMERO_AUTH_TOKEN, or CALIMERO_USERNAME and CALIMERO_PASSWORD, or use "connect AI agent" in the Calimero desktop app';

const MAX_DETAIL = 300;

/**
 * An untyped refusal — core 051f0848's bare "Internal server error" — replaced by what it means for this call; any
 * other error as the node said it (a newer core types its refusals and says why itself).
 */
export function explainBare500(error: unknown, meaning: string): unknown {
  return error instanceof NodeHttpError && error.status === 500 ? new Error(meaning) : error;
}

/**
 * Whether an error is a bug of ours rather than an answer meant for the agent: refusals, the node's errors and
 * validation failures are `Error`s (or the node client's); a `TypeError`, `ReferenceError`, `RangeError` and the like,
 * or a thrown non-error, come from code that went wrong. A bug is logged with its stack and told as ours.
 */
export function isBug(error: unknown): boolean {
  if (!(error instanceof Error)) return true;
  return error instanceof TypeError || error instanceof ReferenceError ||
    error instanceof RangeError || error instanceof EvalError || error instanceof URIError;
}

/** The user-facing message for any thrown value: one or two sentences, no secrets. */
export function describeError(error: unknown): string {
  // Node and app text in an error (a body excerpt, an app's own error) goes to the agent and to logs: one line (a
  // newline in it would start a line that passes for ours), every control and hidden character an escape, no secrets.
  return inline(redactText(describeRaw(error)));
}

function describeRaw(error: unknown): string {
  if (error instanceof NodeRpcError) return describeRpc(error.type, error.data);
  if (error instanceof NodeHttpError) return describeHttp(error);
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  return stringifyJson(error);
}

// ---- JSON-RPC ----

interface Meaning {
  what: string;
  next: string;
  /** Picks the detail worth showing out of `data`. */
  detail?: (data: unknown) => unknown;
}

const RPC_MEANINGS: Record<string, Meaning> = {
  ContextNotFound: {
    what: "This node does not know the context",
    next: "Check the context id or alias, or join the context first.",
  },
  Uninitialized: {
    what: "The context's state has not synced to this node yet",
    next:
      "Retry in a few seconds; sync_context asks the node to sync it now and says how far it is.",
  },
  ApplicationNotInstalled: {
    what: "The context's application is not installed on this node",
    next: "Install the application, then retry.",
  },
  Unauthorized: {
    what: "This node has no identity in the context that may run the method",
    next: "Join the context first, or use a context this node is a member of.",
  },
  GroupKeyPending: {
    what: "The group's key has not reached this node yet",
    next: "Retry in a few seconds.",
  },
  UpgradeInProgress: {
    what: "The context's application is being upgraded",
    next: "Retry in a few seconds.",
  },
  InternalError: {
    what: "The node failed internally",
    next: "Retry; if it keeps failing, check the node's log.",
    detail: (data) => field(data, "kind") ?? field(data, "message") ?? data,
  },
  ParseError: {
    what: "The node could not parse the call's parameters",
    next: "Check the method name and pass the arguments as a JSON object.",
  },
  SerdeError: {
    what: "The arguments do not match what the method expects",
    next: "Check the argument names and types against the method's schema.",
    detail: (data) => field(data, "message") ?? data,
  },
};

/** core's `FunctionCallError` text when the node has no identity of its own in a context (execute.rs). */
const NO_OWNED_IDENTITY = "No owned identity found for this context";

/**
 * The node's own refusals that arrive as `FunctionCallError` before any app code runs (core
 * crates/server/src/execute.rs): not the app's errors, so they get a meaning and a next step.
 */
const NODE_FUNCTION_CALL_MEANINGS: Record<string, Meaning> = {
  [NO_OWNED_IDENTITY]: {
    what:
      "This node has no identity of its own in the context: it has not joined it, has left it, " +
      "or the context no longer exists",
    next:
      "Join it (join_context, or join_namespace with an invitation), or use a context list_contexts shows.",
  },
  "Caller is not a member of this context": {
    what: "The token in use belongs to a key that is not a member of this context",
    next: "Use the token of a member of the context, or the node's own (admin) credentials.",
  },
};

function describeRpc(type: string, data: unknown): string {
  if (type === "FunctionCallError") {
    const meaning = typeof data === "string" ? NODE_FUNCTION_CALL_MEANINGS[data] : undefined;
    if (meaning) return `${meaning.what} (${type}: ${data}). ${meaning.next}`;
    return describeGuestError(data);
  }
  const meaning = RPC_MEANINGS[type];
  const detail = data === undefined || data === null ? "" : brief(meaning?.detail?.(data) ?? data);
  if (!meaning) {
    return detail ? `${type}: ${detail}` : `The node reported the error "${type}" without details.`;
  }
  return `${meaning.what} (${type}${detail ? `: ${detail}` : ""}). ${meaning.next}`;
}

const GUEST_BYTES = /returned an error:\s*\[([\d\s,]*)\]\s*$/;

/**
 * Recovers an app's own error from a FunctionCallError: either the Rust-debug list of the UTF-8
 * bytes of its JSON-serialised error (a JSON string is shown unquoted, anything else as compact
 * JSON), or a plain panic text shown as is.
 */
export function describeGuestError(data: unknown): string {
  const silent = "The app's method failed without a message (FunctionCallError).";
  if (data === undefined || data === null || data === "") return silent;
  if (typeof data !== "string") return `The app's method failed: ${brief(data)}`;
  const match = GUEST_BYTES.exec(data);
  if (!match) return data;
  const numbers = match[1].split(",").map((s) => s.trim()).filter((s) => s !== "").map(Number);
  if (numbers.some((n) => n > 255)) return data;
  const text = new TextDecoder().decode(new Uint8Array(numbers));
  if (text.trim() === "") return silent;
  try {
    const value = parseJson(text);
    return typeof value === "string" ? value : stringifyJson(value);
  } catch {
    return text;
  }
}

// ---- HTTP ----

function describeHttp(error: NodeHttpError): string {
  const origin = originOf(error.url);
  if (error.status === 0 && error.cancelled) return `${error.message}.`;
  if (error.status === 0) {
    const cause = transportCause(error.cause);
    const next = error.timedOut && error.ownTimeoutMs !== null
      ? ` The node did not answer within this operation's own limit of ${
        Math.round(error.ownTimeoutMs / 1000)
      } s (CALIMERO_NODE_TIMEOUT_MS does not govern it); retry, or look at the node's log for why it is slow.`
      : error.timedOut
      ? " The node did not answer in time; retry, or raise CALIMERO_NODE_TIMEOUT_MS."
      : /refused/i.test(cause)
      ? " Check that the node is running at that address."
      : "";
    return `cannot reach the node at ${origin}: ${cause}.${next}`;
  }
  const auth = describeAuth(error, origin);
  if (auth) return auth;
  // An answer that arrived but cannot be used (not JSON, wrong shape, too large) says so itself.
  if (error.status < 400 || error.sizeLimit !== null) return error.message;
  const endpoint = `${error.method} ${error.path}`;
  // A web page is another service's answer (or a wrong path prefix): its markup would only bury the point.
  if (isWebPage(error.body)) {
    return `${
      originOf(error.url)
    } answered ${endpoint} with HTTP ${error.status} and a web page: it is probably not a Calimero node (check CALIMERO_NODE_URL; merod's API listens on port 2528 by default).`;
  }
  const detail = bodyMessage(error.body);
  if (detail === null) {
    const hint = error.status === 404
      ? " This node may not have that endpoint (an older node version?)."
      : "";
    return `The node answered HTTP ${error.status} to ${endpoint} with no body.${hint}`;
  }
  // Newer core answers "not yet" with 503 (the node lacks history, a key or the bytecode it is entitled to, or a
  // join's key is on its way) and 504 when no peer of the namespace answered a join (newer crates/server/src/admin/
  // service.rs `parse_api_error`): the same call may succeed later, which a person reading the message should know.
  if (isKeyScopeRefusal(error)) {
    return `${detail} (HTTP 403 from ${endpoint}: the token is a client key limited to other contexts or groups; use a token whose scope includes this one, or the node's own credentials)`;
  }
  if (error.status === 503) {
    return `${detail} (HTTP 503 from ${endpoint}: the node cannot do this yet; retry the same call in a few seconds)`;
  }
  if (error.status === 504) {
    return `${detail} (HTTP 504 from ${endpoint}: no peer answered in time; retry once the other nodes are online)`;
  }
  return detail;
}

function describeAuth(error: NodeHttpError, origin: string): string | null {
  const { status, authError, path } = error;
  const endpoint = `${error.method} ${path}`;
  const detail = bodyMessage(error.body);
  if (status === 429) {
    const wait = error.retryAfter === null
      ? "retry later"
      : `retry after ${error.retryAfter} seconds`;
    return `Too many failed login attempts at the node (HTTP 429); ${wait}.`;
  }
  if (authError === "token_reuse") {
    return `The refresh token was already used by another client (token_reuse): this copy is spent. For a login the other client's new pair stays valid; for a handoff ("connect AI agent") token the node revoked the whole family, the other client's pair too. Authenticate again: ${AUTH_SETTINGS}.`;
  }
  if (authError === "token_revoked") {
    return `The node revoked the access token (token_revoked). The stored tokens were dropped; authenticate again: ${AUTH_SETTINGS}.`;
  }
  if (status === 403 && authError === "permission_denied") {
    return `The token lacks the permission to call ${endpoint} (permission_denied). Use a token that grants it, for example an admin login or a fresh "connect AI agent" from the desktop app.`;
  }
  if (status === 403 && authError === "invalid_node") {
    return `The token was issued for another node address, not ${origin} (invalid_node). Get a token for this node: ${AUTH_SETTINGS}.`;
  }
  if (status !== 401) return null;
  const said = detail ? `: ${detail}` : "";
  if (path === "/auth/token") {
    return `The node rejected the login${said}. Check CALIMERO_USERNAME and CALIMERO_PASSWORD.`;
  }
  if (path === "/auth/refresh") {
    return `The node refused to refresh the tokens${said}. Authenticate again: ${AUTH_SETTINGS}.`;
  }
  if (authError === "token_expired") {
    return `The access token expired and could not be refreshed (token_expired). Authenticate again: ${AUTH_SETTINGS}.`;
  }
  if (error.sentCredentials) {
    // A token was sent and refused: it is not missing, so saying "set it" would send the person in circles.
    return `The node at ${origin} refused the token it was given (HTTP 401 on ${endpoint}${said}): it may be expired, revoked, or issued by another node. Get a new one for this node: ${AUTH_SETTINGS}.`;
  }
  return `The node at ${origin} requires authentication (HTTP 401 on ${endpoint}${said}). To provide it, ${AUTH_SETTINGS}.`;
}

/** The message inside an error body: `{ error }` text, other JSON compacted, or plain text; null when empty. */
function bodyMessage(body: string): string | null {
  if (body.trim() === "") return null;
  let parsed: unknown;
  try {
    parsed = parseJson(body);
  } catch {
    return body.slice(0, MAX_DETAIL);
  }
  const message = field(parsed, "error");
  if (typeof message === "string" && message !== "") return readableIds(message);
  const nested = field(message, "message");
  if (typeof nested === "string" && nested !== "") return nested;
  return brief(parsed);
}

function field(value: unknown, key: string): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  return (value as Record<string, unknown>)[key];
}

function brief(value: unknown): string {
  const text = typeof value === "string" ? value : stringifyJson(value);
  return text.slice(0, MAX_DETAIL);
}

// ---- predicates ----

/** True when the node refused to run a call because it has no identity in the context (unknown, left, not joined). */
/** An answer body that is a web page: another service's (or a wrong path prefix's), never a Calimero node's. */
export function isWebPage(body: string): boolean {
  return /^\s*</.test(body);
}

/**
 * A scoped client key refused on a context or group outside its scope (newer core client_key_scope.rs: a JSON 403
 * without `X-Auth-Error`, "This key may not…" / "This key is not permitted to act on this …"): not a refusal of
 * this node's membership, which the same status also carries.
 */
export function isKeyScopeRefusal(error: unknown): boolean {
  return error instanceof NodeHttpError && error.status === 403 && error.authError === null &&
    /^This key (may not|is not permitted)/.test(bodyMessage(error.body) ?? "");
}

export function isNoIdentityError(error: unknown): boolean {
  return error instanceof NodeRpcError && error.type === "FunctionCallError" &&
    error.data === NO_OWNED_IDENTITY;
}

/** True when the app behind a call is gone from this node (uninstalled, or the context unknown). */
export function isAppGoneError(error: unknown): boolean {
  return error instanceof NodeRpcError &&
    (error.type === "ApplicationNotInstalled" || error.type === "ContextNotFound");
}

/** True when the node refused the credentials (any 401, or a 403 carrying an X-Auth-Error). */
export function isAuthError(error: unknown): boolean {
  return error instanceof NodeHttpError &&
    (error.status === 401 || (error.status === 403 && error.authError !== null));
}
