// What a node's health and auth answers mean to a person: another service answering, a store not ready, a token
// refused. node_status and doctor say the same things in the same words.

import { describeError, isAuthError, isWebPage } from "../answer/errors.ts";
import { answeredStatus, NodeHttpError, originOf } from "../mero/mod.ts";

/**
 * Why the address does not hold a Calimero node, or null when the health check's failure does not say so. Core
 * answers `GET /admin-api/health` to anyone, with `{"data":{"status":…}}` (crates/server/src/admin/service.rs); a
 * 404 or 405 there, an HTML page, or another shape means another service (or a wrong path prefix) is answering.
 */
export function notANode(error: unknown): string | null {
  if (!(error instanceof NodeHttpError) || error.status === 0 || error.authError !== null) {
    return null;
  }
  const html = isWebPage(error.body);
  const missing = (error.status === 404 || error.status === 405) && /\/health$/.test(error.path);
  const unshaped = error.status >= 200 && error.status < 300 && (error.expected !== null || html ||
    error.cause instanceof SyntaxError);
  if (!missing && !unshaped && !html) return null;
  return `not a Calimero node: ${
    originOf(error.url)
  } answered ${error.method} ${error.path} with HTTP ${error.status}${
    html ? " and a web page" : unshaped ? " in another shape" : ""
  }, where a node answers its health. Check CALIMERO_NODE_URL (merod's API listens on port 2528 by default; a node behind a path prefix needs that prefix in the URL).`;
}

/** The status a failed health check carries (`store_unavailable` on a 503), else the translated error. */
export function healthProblem(error: unknown): string {
  const foreign = notANode(error);
  if (foreign !== null) return foreign;
  const status = answeredStatus(error);
  return status !== null && error instanceof NodeHttpError
    ? `${status} (HTTP ${error.status})`
    : describeError(error);
}

/** `ok` when the node answered an authenticated request at all; otherwise what is wrong and what to do. */
export function authProblem(error: unknown): string {
  if (isAuthError(error) || (error instanceof NodeHttpError && error.status === 429)) {
    return describeError(error);
  }
  if (error instanceof NodeHttpError && error.status !== 0) return "ok";
  return `not checked: ${describeError(error)}`;
}
