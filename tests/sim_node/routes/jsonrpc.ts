// `POST /jsonrpc`: HTTP 200 for every JSON-RPC outcome, `{ result: { output } }` or
// `{ error: { type, data? } }` (no code, no message). Bad params are `ParseError`s.

import { execute } from "../execute.ts";
import { syncStatus } from "../contexts.ts";
import { json } from "../http.ts";
import { isBase58Id } from "../ids.ts";
import { bodyObject, notAnObject, type Route } from "../router.ts";

function parseError(id: unknown, data: string): Response {
  return json({ jsonrpc: "2.0", id: id ?? null, error: { type: "ParseError", data } });
}

/** The JSON-RPC route. */
export const jsonrpcRoutes: Route[] = [{
  method: "POST",
  pattern: "/jsonrpc",
  json: true,
  handler: ({ node, body }) => {
    const request = bodyObject(body);
    if (!request) return notAnObject();
    const id = request.id;
    // The payload is parsed after `Json<Request<Value>>`, so an unknown method is an HTTP 200 ParseError
    // (core crates/server/src/jsonrpc.rs, handle_request).
    if (request.method === "sync_status") {
      // SyncStatusRequest {contextId}; the answer is the response itself, an unknown context the handler error
      // {type: "ContextNotFound"} (core crates/server/src/jsonrpc/sync_status.rs, primitives jsonrpc.rs).
      const contextId = bodyObject(request.params)?.contextId;
      if (typeof contextId !== "string" || !isBase58Id(contextId)) {
        return parseError(id, `invalid contextId ${JSON.stringify(contextId ?? null)}`);
      }
      const status = syncStatus(node, contextId);
      return json({
        jsonrpc: "2.0",
        id: id ?? null,
        ...(status ? { result: status } : { error: { type: "ContextNotFound" } }),
      });
    }
    if (request.method !== "execute") {
      return parseError(
        id,
        `unknown variant \`${
          String(request.method)
        }\`, expected one of \`execute\`, \`sync_status\`, \`set_ephemeral\``,
      );
    }
    const params = bodyObject(request.params);
    if (!params) return parseError(id, "params must be an object");
    const { contextId, method, argsJson } = params;
    if (typeof contextId !== "string" || !isBase58Id(contextId)) {
      return parseError(id, `invalid contextId ${JSON.stringify(contextId ?? null)}`);
    }
    if (
      typeof method !== "string" || method === "" || new TextEncoder().encode(method).length > 256
    ) {
      return parseError(id, "method must be a non-empty string of at most 256 bytes");
    }
    if (argsJson === undefined) return parseError(id, "missing field `argsJson`");
    const outcome = execute(node, contextId, method, argsJson);
    return "output" in outcome
      ? json({ jsonrpc: "2.0", id: id ?? null, result: { output: outcome.output } })
      : json({ jsonrpc: "2.0", id: id ?? null, error: outcome.error });
  },
}];
