// The node client mero-mcp uses, shaped like mero-js (`admin.*`, `rpc.execute`) so that swapping in
// mero-js later touches only src/mero. Knows nothing about MCP. The folder's door is mod.ts.

import { type AdminApi, createAdminApi } from "./admin.ts";
import { type AuthProvider, createHttp, type HttpCore } from "./http.ts";
import { createRpcApi, type RpcApi } from "./rpc.ts";
import { createEventsApi, type EventsApi } from "./sse.ts";

import { NodeHttpError } from "./http.ts";

/** Options of createMeroClient. */
export interface MeroClientOptions {
  /** Node base URL, possibly with a path prefix. */
  baseUrl: string;
  /** Default per-request timeout in milliseconds (10 000 when absent). */
  timeoutMs?: number;
  /** Supplies the Authorization header and refreshes it; none means no header. */
  auth?: AuthProvider;
  /** Injected fetch (tests). */
  fetch?: typeof fetch;
}

/** A client for one node. */
export interface MeroClient {
  /** The node's base URL without userinfo, query or trailing slash. */
  readonly baseUrl: string;
  readonly admin: AdminApi;
  readonly rpc: RpcApi;
  /** The node's event stream (`/sse`) and its subscriptions. */
  readonly events: EventsApi;
  /** The HTTP core, for the auth endpoints (`login(client.http, …)`). */
  readonly http: HttpCore;
  /** The Authorization header the next request would carry (null: none), e.g. to read its token's scope. */
  authorization(): Promise<string | null>;
}

/** Creates a client for one node; throws when `baseUrl` is not an http(s) URL. */
export function createMeroClient(options: MeroClientOptions): MeroClient {
  const http = createHttp(options);
  return {
    baseUrl: http.baseUrl,
    admin: createAdminApi(http),
    rpc: createRpcApi(http),
    events: createEventsApi(http),
    http,
    authorization: () => options.auth?.header() ?? Promise.resolve(null),
  };
}

/**
 * The request's answer, or null when the node answers 404: for a caller asking whether something (an app, its
 * contexts) is still there, where "gone" is an answer and not an error.
 */
export async function unlessMissing<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof NodeHttpError && error.status === 404) return null;
    throw error;
  }
}
