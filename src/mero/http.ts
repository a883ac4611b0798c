// HTTP core of the node client: URL joining under a path prefix, JSON and raw bodies, timeouts, the
// auth hook (refresh once on `token_expired`, then retry once), envelopes, and one error class.
// Every failure — a refused connection, a timeout, an answer over the byte cap (body.ts) or of the
// wrong shape (shape.ts) — surfaces as a NodeHttpError.

import { isValidTraceparent } from "../lib/traceparent.ts";
import { JSON_ANSWER_LIMIT, readBody } from "./body.ts";
import { NodeHttpError, parseRetryAfter } from "./http_error.ts";
import { parseJson, stringifyJson } from "../lib/json.ts";
import { redactUrl } from "../lib/redact.ts";
import type { Shape } from "./shape.ts";

export { NodeHttpError } from "./http_error.ts";

/** Per-call options every client method accepts as its last argument. */
export interface CallOptions {
  /** Aborts the request (reported as a transport failure, status 0). */
  signal?: AbortSignal;
  /** Overrides the request timeout in milliseconds. */
  timeoutMs?: number;
  /** W3C trace context to forward; ignored unless well-formed. */
  traceparent?: string;
}

/** The auth hook the token store (src/node/node.ts) implements; the client never stores tokens. */
export interface AuthProvider {
  /** The Authorization header value to send, or null for none. */
  header(): Promise<string | null>;
  /**
   * Called once per request with the header that failed: on 401 + `X-Auth-Error: token_expired` (`expired`), or
   * on a bare 401 (`rejected`: the node no longer knows the key, say after its auth store was reset). Resolves
   * true when a fresh token is available; the request is then retried once.
   */
  refresh(failedHeader: string, why: "expired" | "rejected"): Promise<boolean>;
  /** Called on 403 token_revoked: stored tokens must be dropped. */
  invalidate(reason: "token_revoked"): Promise<void>;
}

/** How to reach the node. */
export interface HttpOptions {
  /** Node base URL, possibly with a path prefix (`http://localhost:2528/node1`). */
  baseUrl: string;
  /** Default per-request timeout in milliseconds (10 000 when absent). */
  timeoutMs?: number;
  /** Supplies and refreshes the Authorization header; none means no header. */
  auth?: AuthProvider;
  /** Injected fetch (tests); the global fetch otherwise. */
  fetch?: typeof fetch;
}

/** One request, described as data. */
export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Endpoint path starting with `/`, ids already URL-encoded. */
  path: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | undefined>;
  /** JSON body. POST and PUT send `{}` when neither `json` nor `bytes` is given. */
  json?: unknown;
  /** Raw body, sent as `application/octet-stream`. */
  bytes?: Uint8Array;
  /** `bytes` returns the raw response body; `json` (default) parses it losslessly. */
  response?: "json" | "bytes";
  /** Unwrap a `{ data }` envelope (default true). */
  envelope?: boolean;
  /** What callers read of the (unwrapped) JSON payload; a 2xx answer of another shape is an error. */
  expect?: Shape;
  /** The most bytes of the answer to read (JSON_ANSWER_LIMIT by default); more is an error. */
  maxBytes?: number;
  /** Send the Authorization header (default true; false for the auth endpoints themselves). */
  auth?: boolean;
  /**
   * The path is at the node's origin, not under the base URL's path prefix: core nests only `/admin-api`,
   * `/jsonrpc` and `/ws` under `NODE_PATH_PREFIX`; `/auth/*` and `/sse` stay at the root.
   */
  atRoot?: boolean;
  /** This endpoint's default timeout (e.g. 300 000 for an install); `call.timeoutMs` wins. */
  timeoutMs?: number;
  call?: CallOptions;
  /**
   * The last answer of this endpoint: a body byte-for-byte the same returns the same payload object, neither
   * parsed nor checked again (an idle poll of 200 apps then costs one comparison). Callers must not mutate it.
   */
  memo?: AnswerMemo;
}

/** The last body and payload of one endpoint (see `RequestSpec.memo`). */
export interface AnswerMemo {
  text: string | null;
  value: unknown;
}

/** The HTTP core shared by admin, rpc and auth calls. */
export interface HttpCore {
  /** The base URL without userinfo, query or trailing slash. */
  readonly baseUrl: string;
  /** Performs one request and returns the (unwrapped) payload; throws NodeHttpError. */
  request<T = unknown>(spec: RequestSpec): Promise<T>;
  /**
   * Opens a long-lived GET (an event stream): the same auth rules as `request`, the timeout covers only the wait
   * for the headers, and a 2xx answer is returned unread for the caller to consume (abort `signal` to end it).
   */
  stream(spec: StreamSpec): Promise<Response>;
}

/** A streaming GET. */
export interface StreamSpec {
  path: string;
  headers?: Record<string, string>;
  atRoot?: boolean;
  /** Ends the stream (before or after the headers). */
  signal: AbortSignal;
  /** How long to wait for the headers (10 000 ms when absent). */
  timeoutMs?: number;
}

/** How much of a refused stream's body is read for the error message. */
const STREAM_ERROR_BYTES = 64 * 1024;

/** Removes userinfo, query, fragment and trailing slashes from a base URL; rejects non-HTTP ones. */
function normalizeBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(
      `Node URL "${redactUrl(baseUrl)}" is not a valid URL. Use the form http://localhost:2528.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(
      `Node URL "${redactUrl(baseUrl)}" must start with http:// or https://.`,
    );
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
}

/** What one attempt produced: a value, or the error to throw (after the auth rules ran). */
interface Outcome {
  status: number;
  authError: string | null;
  value?: unknown;
  error?: NodeHttpError;
}

/** Creates the HTTP core for one node. */
export function createHttp(options: HttpOptions): HttpCore {
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const origin = new URL(baseUrl).origin;
  const defaultTimeout = options.timeoutMs ?? 10_000;
  const fetchFn = options.fetch ?? fetch;
  const auth = options.auth;

  async function request<T>(spec: RequestSpec): Promise<T> {
    const url = (spec.atRoot ? origin : baseUrl) + spec.path + queryString(spec.query);
    const provider = spec.auth === false ? undefined : auth;
    let header = provider ? await provider.header() : null;
    let outcome = await attempt(spec, url, header);
    const why = refreshReason(outcome.status, outcome.authError);
    if (provider && header !== null && why !== null && await provider.refresh(header, why)) {
      header = await provider.header();
      outcome = await attempt(spec, url, header);
    }
    if (outcome.error) {
      await invalidateOn(provider, outcome.error);
      throw outcome.error;
    }
    return outcome.value as T;
  }

  async function stream(spec: StreamSpec): Promise<Response> {
    const url = (spec.atRoot ? origin : baseUrl) + spec.path;
    const base = { method: "GET", url, path: spec.path };
    const open = async (header: string | null): Promise<Response> => {
      const headers = new Headers(spec.headers);
      if (header !== null) headers.set("authorization", header);
      headers.set("accept", "text/event-stream");
      headers.set("accept-encoding", "identity");
      const controller = new AbortController();
      let timedOut = false;
      const timeoutMs = spec.timeoutMs ?? defaultTimeout;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      const onAbort = () => controller.abort(spec.signal.reason ?? new Error("aborted"));
      if (spec.signal.aborted) onAbort();
      spec.signal.addEventListener("abort", onAbort, { once: true });
      try {
        return await fetchFn(url, {
          method: "GET",
          headers,
          signal: controller.signal,
          redirect: "manual",
        });
      } catch (cause) {
        spec.signal.removeEventListener("abort", onAbort);
        const reason = controller.signal.aborted ? controller.signal.reason : cause;
        throw new NodeHttpError({ ...base, status: 0, timedOut, cause: reason });
      } finally {
        clearTimeout(timer);
      }
    };
    let header = auth ? await auth.header() : null;
    let response = await open(header);
    const why = refreshReason(response.status, response.headers.get("x-auth-error"));
    if (auth && header !== null && why !== null && await auth.refresh(header, why)) {
      response.body?.cancel().catch(() => {});
      header = await auth.header();
      response = await open(header);
    }
    if (response.ok) return response;
    const raw = await readBody(response, STREAM_ERROR_BYTES).catch(() => null);
    const error = new NodeHttpError({
      ...base,
      status: response.status,
      body: raw === null ? "" : new TextDecoder().decode(raw),
      authError: response.headers.get("x-auth-error"),
      retryAfter: parseRetryAfter(response.headers.get("retry-after")),
      sentCredentials: header !== null,
    });
    await invalidateOn(auth, error);
    throw error;
  }

  async function attempt(spec: RequestSpec, url: string, header: string | null): Promise<Outcome> {
    const call = spec.call ?? {};
    const timeoutMs = call.timeoutMs ?? spec.timeoutMs ?? defaultTimeout;
    const headers = new Headers();
    if (header !== null) headers.set("authorization", header);
    if (call.traceparent !== undefined && isValidTraceparent(call.traceparent)) {
      headers.set("traceparent", call.traceparent);
    }
    headers.set("accept", spec.response === "bytes" ? "*/*" : "application/json");
    // Set by hand, so fetch does not inflate the answer: the byte caps then count what arrives, and a gzip
    // bomb stays a few hundred compressed bytes that fail to parse.
    headers.set("accept-encoding", "identity");
    let body: BodyInit | undefined;
    if (spec.bytes !== undefined) {
      headers.set("content-type", "application/octet-stream");
      body = spec.bytes as Uint8Array<ArrayBuffer>;
    } else if (spec.json !== undefined || spec.method === "POST" || spec.method === "PUT") {
      headers.set("content-type", "application/json");
      body = stringifyJson(spec.json ?? {});
    }
    const base = { method: spec.method, url, path: spec.path };

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const onCallerAbort = () => controller.abort(call.signal?.reason ?? new Error("aborted"));
    if (call.signal?.aborted) onCallerAbort();
    call.signal?.addEventListener("abort", onCallerAbort, { once: true });
    try {
      const sizeLimit = spec.maxBytes ?? JSON_ANSWER_LIMIT;
      let response: Response;
      let raw: Uint8Array | null;
      try {
        // Redirects are not followed: an answer from another origin is not the node's, and a 307 would replay a
        // POST or DELETE (delete_context, say) at whatever it points to, another local node included.
        response = await fetchFn(url, {
          method: spec.method,
          headers,
          body,
          signal: controller.signal,
          redirect: "manual",
        });
        raw = await readBody(response, sizeLimit);
      } catch (cause) {
        const reason = controller.signal.aborted ? controller.signal.reason : cause;
        const error = new NodeHttpError({
          ...base,
          status: 0,
          timedOut,
          cancelled: !timedOut && call.signal?.aborted === true,
          ownTimeoutMs: timeoutMs === defaultTimeout ? null : timeoutMs,
          cause: reason,
        });
        return { status: 0, authError: null, error };
      }
      const authError = response.headers.get("x-auth-error");
      const status = response.status;
      if (raw === null || !response.ok) {
        const location = response.headers.get("location");
        const redirected = status >= 300 && status < 400
          ? `a redirect to ${
            location === null ? "nowhere" : redactUrl(location)
          }, which mero-mcp does not follow`
          : null;
        const error = new NodeHttpError({
          ...base,
          status,
          body: redirected ?? (raw === null ? "" : new TextDecoder().decode(raw)),
          authError,
          retryAfter: parseRetryAfter(response.headers.get("retry-after")),
          sentCredentials: header !== null,
          ...(raw === null ? { sizeLimit } : {}),
        });
        return { status, authError, error };
      }
      if (spec.response === "bytes") return { status, authError, value: raw };
      const text = new TextDecoder().decode(raw);
      if (spec.memo && spec.memo.text === text) {
        return { status, authError, value: spec.memo.value };
      }
      let value: unknown = null;
      if (text.trim() !== "") {
        try {
          const parsed = parseJson(text);
          value = spec.envelope === false ? parsed : unwrapEnvelope(parsed);
        } catch (cause) {
          const error = new NodeHttpError({ ...base, status, body: text, cause });
          return { status, authError, error };
        }
      }
      if (spec.expect !== undefined && !spec.expect.test(value)) {
        const error = new NodeHttpError({
          ...base,
          status,
          body: text,
          expected: spec.expect.expected,
        });
        return { status, authError, error };
      }
      if (spec.memo) Object.assign(spec.memo, { text, value });
      return { status, authError, value };
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener("abort", onCallerAbort);
    }
  }

  return { baseUrl, request, stream };
}

/**
 * Whether a refused request may be retried after a refresh: core's guard answers an expired token with
 * `token_expired`, and every other token failure with a bare 401 (crates/server/src/auth.rs).
 */
function refreshReason(status: number, authError: string | null): "expired" | "rejected" | null {
  if (status !== 401) return null;
  if (authError === "token_expired") return "expired";
  return authError === null ? "rejected" : null;
}

/** Drops stored tokens when the node says they were revoked. */
async function invalidateOn(provider: AuthProvider | undefined, error: NodeHttpError) {
  const { status, authError } = error;
  // A reused refresh token (401 token_reuse) revokes nothing for a login in core (crates/auth/src/auth/token/
  // jwt.rs): the stored pair may be another process's newer one, so it is kept.
  if (provider && status === 403 && authError === "token_revoked") {
    await provider.invalidate("token_revoked");
  }
}

/** `{ data: X }` → X; a flat body is returned as is. */
function unwrapEnvelope(body: unknown): unknown {
  if (body !== null && typeof body === "object" && !Array.isArray(body) && "data" in body) {
    return (body as { data: unknown }).data;
  }
  return body;
}

function queryString(query: RequestSpec["query"]): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}
