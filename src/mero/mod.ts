// The node client's one door: everything outside src/mero/ imports it from here, so swapping in another client
// (mero-js) touches this folder alone (tests/layering_test.ts refuses an import past it). It knows nothing of MCP.

export {
  createMeroClient,
  type MeroClient,
  type MeroClientOptions,
  unlessMissing,
} from "./client.ts";
export type { AdminApi } from "./admin.ts";
export { INSTALL_TIMEOUT_MS } from "./admin.ts";
export { JOIN_NAMESPACE_TIMEOUT_MS } from "./admin_groups.ts";
export type { AuthProvider, CallOptions, HttpCore } from "./http.ts";
export { answeredStatus, NodeHttpError, originOf, transportCause } from "./http_error.ts";
export { type ExecuteRequest, NodeRpcError, type RpcApi } from "./rpc.ts";
export { createEventsApi, type EventsApi, type StreamItem } from "./sse.ts";
export { decodeJwtClaims, login, refreshTokens } from "./auth.ts";
export type * from "./types.ts";
