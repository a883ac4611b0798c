// The node client's one error class. `status` 0 means no HTTP answer arrived (refused, DNS,
// timeout, abort); the URL it carries never has userinfo or a query string.

import { formatBytes } from "./body.ts";
import { parseJson } from "../lib/json.ts";
import { redactText, redactUrl } from "../lib/redact.ts";

/** Fields of a NodeHttpError; `url` and `path` are redacted on construction. */
export interface NodeHttpErrorInit {
  status: number;
  method: string;
  url: string;
  path: string;
  body?: string;
  authError?: string | null;
  retryAfter?: number | null;
  timedOut?: boolean;
  /** The caller cancelled the request before an answer came (status 0): the node may still have run it. */
  cancelled?: boolean;
  /** The limit that cut the request off, when it was the operation's own (not CALIMERO_NODE_TIMEOUT_MS). */
  ownTimeoutMs?: number | null;
  /** Set when the answer was larger than this many bytes and was not read. */
  sizeLimit?: number;
  /** Set when a 2xx payload lacked what callers need: what they expected (`Shape.expected`). */
  expected?: string;
  /** Whether the request carried a bearer token: a 401 then means the token was refused, not missing. */
  sentCredentials?: boolean;
  cause?: unknown;
}

/**
 * A failed node request. `status` is 0 when no HTTP answer arrived (refused, DNS, timeout, abort);
 * `url` has no query or userinfo; `body` is the response text ("" when none); `authError` is the
 * `X-Auth-Error` header; `retryAfter` is the `Retry-After` delay in seconds. `sizeLimit` and
 * `expected` mark an answer that arrived but cannot be used (too large, wrong shape); the message
 * then says so and is meant to be shown as is.
 */
export class NodeHttpError extends Error {
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly path: string;
  readonly body: string;
  readonly authError: string | null;
  readonly retryAfter: number | null;
  /** True when the request was cut off by its timeout (status 0). */
  readonly timedOut: boolean;
  /** True when the caller cancelled it before an answer came (status 0): it may have reached the node. */
  readonly cancelled: boolean;
  /** The operation's own limit that cut it off (its advice is not CALIMERO_NODE_TIMEOUT_MS), or null. */
  readonly ownTimeoutMs: number | null;
  /** The byte cap the answer exceeded (it was not read), or null. */
  readonly sizeLimit: number | null;
  /** What callers needed when a 2xx payload had another shape, or null. */
  readonly expected: string | null;
  /** Whether the request carried a bearer token. */
  readonly sentCredentials: boolean;

  constructor(init: NodeHttpErrorInit) {
    const url = redactUrl(init.url);
    super(defaultMessage(init, url), { cause: init.cause });
    this.name = "NodeHttpError";
    this.status = init.status;
    this.method = init.method;
    this.url = url;
    this.path = redactUrl(init.path);
    this.body = init.body ?? "";
    this.authError = init.authError ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.timedOut = init.timedOut ?? false;
    this.cancelled = init.cancelled ?? false;
    this.ownTimeoutMs = init.ownTimeoutMs ?? null;
    this.sizeLimit = init.sizeLimit ?? null;
    this.expected = init.expected ?? null;
    this.sentCredentials = init.sentCredentials ?? false;
  }
}

function defaultMessage(init: NodeHttpErrorInit, url: string): string {
  if (init.status === 0 && init.cancelled) {
    return `${init.method} ${redactUrl(init.path)} was cancelled before the node answered (${
      transportCause(init.cause)
    }): the request may have reached it, so a write may have landed`;
  }
  if (init.status === 0) {
    return `cannot reach the node at ${originOf(url)}: ${transportCause(init.cause)}`;
  }
  const endpoint = `${init.method} ${redactUrl(init.path)}`;
  if (init.sizeLimit !== undefined) {
    return `the node's answer to ${endpoint} is larger than ${
      formatBytes(init.sizeLimit)
    }; mero-mcp stops reading there. An answer this large is not expected: check that ${
      originOf(url)
    } is the Calimero node you meant.`;
  }
  if (init.expected !== undefined) {
    const what = init.body ? "an unexpected body" : "an empty body";
    const body = init.body ? ` Body: ${redactText(init.body.slice(0, 300))}` : "";
    return `${endpoint}: the node answered HTTP ${init.status} with ${what} (expected ${init.expected}). Check that ${
      originOf(url)
    } is a Calimero node of a version mero-mcp supports.${body}`;
  }
  const body = init.body ? `: ${redactText(init.body.slice(0, 300))}` : "";
  if (init.status < 400) {
    return `${endpoint}: the node answered HTTP ${init.status} with a body that is not JSON${body}`;
  }
  const auth = init.authError ? ` (${init.authError})` : "";
  return `${endpoint} failed with HTTP ${init.status}${auth}${body}`;
}

/** The origin of a URL for messages (`http://h:1`), or the redacted URL when it does not parse. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return redactUrl(url);
  }
}

/**
 * A readable, redacted cause of a transport failure: the innermost error message, without the
 * `error sending request for url (…)` preamble that would repeat (and possibly leak) the URL.
 */
export function transportCause(cause: unknown): string {
  let inner: unknown = cause;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  const text = inner instanceof Error ? inner.message : String(inner ?? "unknown error");
  return redactText(text.replace(/^error sending request for url \([^)]*\):\s*/, ""));
}

/** Parses `Retry-After` (delta seconds or an HTTP date) into whole seconds, or null. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * The status label a refusal's body carries, `{"data": {"status": …}}` — core's health and readiness probes answer
 * 503 with `store_unavailable`, `starting` or `shutting_down` there — or null when it carries none.
 */
export function answeredStatus(error: unknown): string | null {
  if (!(error instanceof NodeHttpError) || error.body === "") return null;
  try {
    const status = (parseJson(error.body) as { data?: { status?: unknown } } | null)?.data?.status;
    return typeof status === "string" ? status : null;
  } catch {
    return null; // not JSON
  }
}
