// A small router with the node's request-side quirks: path ids are checked by name (`:app`,
// `:context`, `:blob` base58; `:group`, `:namespace` hex) → a 400 (plain text or JSON, as core's handler
// does), JSON routes insist on `Content-Type: application/json` (415, or a JSON 400 on ValidatedJson routes),
// unknown routes → bare 404.

import { isBase58Id, isHexId } from "./ids.ts";
import { bare, jsonError, text } from "./http.ts";
import { parseLossless } from "./json.ts";
import type { NodeState } from "./state.ts";

/** What a route handler receives. */
export interface RouteCtx {
  req: Request;
  url: URL;
  /** Path parameters, already checked for their id form. */
  params: Record<string, string>;
  /** The parsed JSON body on JSON routes (bigint for integers above 2^53), else undefined. */
  body: unknown;
  node: NodeState;
}

/** A route: method, pattern with `:param` segments, whether it takes a JSON body, handler. */
export interface Route {
  method: string;
  pattern: string;
  json?: boolean;
  /**
   * The handler takes core's `ValidatedJson`, whose rejections are JSON 400s (`Invalid JSON data: …`, `JSON
   * syntax error: …`) instead of axum's plain-text 415/400/422 (core crates/server/src/admin/handlers/validation.rs).
   */
  validated?: boolean;
  handler: (ctx: RouteCtx) => Response | Promise<Response>;
}

/**
 * Path ids by parameter name: what they must be, and how a bad one is refused. Application and context ids are
 * typed path extractors (axum's plain-text 400); group, namespace and blob ids are parsed by the handlers into a
 * JSON 400 (core crates/server/src/admin/handlers/groups.rs parse_group_id, blob.rs).
 */
const ID_FORMS: Record<string, [string, (s: string) => boolean, string | null]> = {
  app: ["base58 application id", isBase58Id, null],
  context: ["base58 context id", isBase58Id, null],
  blob: ["base58 blob id", isBase58Id, "Invalid blob ID format"],
  group: ["hex group id", isHexId, "Invalid group id format: expected hex-encoded 32 bytes"],
  account: [
    "hex account id",
    isHexId,
    "Invalid account format: expected 64 hex characters (32 bytes)",
  ],
  namespace: [
    "hex namespace id",
    isHexId,
    "Invalid group id format: expected hex-encoded 32 bytes",
  ],
};

/** Matches `path` against `pattern`; the raw parameters, or null. */
export function matchPattern(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want[want.length - 1] === "*") {
    if (got.length < want.length - 1) return null;
  } else if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i] === "*") return params;
    if (want[i].startsWith(":")) {
      if (got[i] === "") return null;
      params[want[i].slice(1)] = decodeURIComponent(got[i]);
    } else if (want[i] !== got[i]) return null;
  }
  return params;
}

/** Finds the route for a request and runs it with the node's request checks. */
export async function dispatch(
  routes: Route[],
  node: NodeState,
  req: Request,
  url: URL,
  path: string,
): Promise<Response> {
  let pathMatched = false;
  for (const route of routes) {
    const params = matchPattern(route.pattern, path);
    if (!params) continue;
    pathMatched = true;
    if (route.method !== req.method) continue;
    for (const [name, value] of Object.entries(params)) {
      const form = ID_FORMS[name];
      if (form && !form[1](value)) {
        return form[2] === null
          ? text(400, `Invalid URL: Cannot parse \`${value}\` as a ${form[0]}`)
          : jsonError(400, form[2]);
      }
    }
    let body: unknown = undefined;
    if (route.json) {
      const type = req.headers.get("content-type") ?? "";
      if (!type.toLowerCase().startsWith("application/json")) {
        const message = "Expected request with `Content-Type: application/json`";
        return route.validated ? jsonError(400, message) : text(415, message);
      }
      const raw = await req.text();
      try {
        body = parseLossless(raw);
      } catch (error) {
        const message = `Failed to parse the request body as JSON: ${(error as Error).message}`;
        return route.validated
          ? jsonError(400, `JSON syntax error: ${message}`)
          : text(400, message);
      }
    }
    const answer = await route.handler({ req, url, params, body, node });
    // A body the DTO cannot take: plain-text 422 from axum's `Json`, a JSON 400 from `ValidatedJson`.
    if (route.validated && answer.status === 422) {
      return jsonError(400, `Invalid JSON data: ${await answer.text()}`);
    }
    return answer;
  }
  return bare(pathMatched ? 405 : 404);
}

/** Plain-text 422 for a body that misses a field, as the node's JSON extractor words it. */
export function missingField(field: string): Response {
  return text(
    422,
    `Failed to deserialize the JSON body into the target type: missing field \`${field}\``,
  );
}

/** Plain-text 422 for a body field of the wrong type or form. */
export function invalidField(field: string, expected: string): Response {
  return text(
    422,
    `Failed to deserialize the JSON body into the target type: ${field}: invalid value, expected ${expected}`,
  );
}

/** The body as an object, or null when it is not one (callers answer `notAnObject`). */
export function bodyObject(body: unknown): Record<string, unknown> | null {
  return body !== null && typeof body === "object" && !Array.isArray(body)
    ? body as Record<string, unknown>
    : null;
}

/** Plain-text 422 for a body that is not a JSON object. */
export function notAnObject(): Response {
  return text(422, "Failed to deserialize the JSON body into the target type: expected a struct");
}
