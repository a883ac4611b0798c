// JSON-RPC `execute` against `POST /jsonrpc`. The node answers HTTP 200 for every
// outcome; an `error` member becomes a NodeRpcError carrying the node's `type` and `data`, and a body
// with neither `result` nor `error` is a NodeHttpError (never a silent `null`).

import type { CallOptions, HttpCore } from "./http.ts";
import { SHAPES } from "./shape.ts";

/**
 * A JSON-RPC failure reported by the node: `type` is its error kind (`FunctionCallError`,
 * `ContextNotFound`, …) and `data` its optional detail (for a guest error, the app's message).
 */
export class NodeRpcError extends Error {
  readonly type: string;
  readonly data: unknown;

  constructor(type: string, data: unknown, method: string) {
    const detail = typeof data === "string" ? `: ${data.slice(0, 300)}` : "";
    super(`calling "${method}" failed with ${type}${detail}`);
    this.name = "NodeRpcError";
    this.type = type;
    this.data = data;
  }
}

/** One method call in one context. */
export interface ExecuteRequest {
  contextId: string;
  method: string;
  /** The method's arguments by name; `{}` when absent. Bigints are sent with exact digits. */
  argsJson?: unknown;
}

/** Builds the JSON-RPC API over an HTTP core. */
export function createRpcApi(http: HttpCore) {
  let nextId = 1;
  return {
    /**
     * Runs a method and returns its `output`, parsed losslessly (`null` when the method returns
     * nothing). Throws NodeRpcError for a JSON-RPC error, NodeHttpError for HTTP failures and for
     * a 200 body that is neither `{ result: {…} }` nor `{ error }`.
     */
    async execute(request: ExecuteRequest, call?: CallOptions): Promise<unknown> {
      const body = await http.request<{ result?: { output?: unknown }; error?: unknown }>({
        method: "POST",
        path: "/jsonrpc",
        envelope: false,
        expect: SHAPES.rpc,
        call,
        json: {
          jsonrpc: "2.0",
          id: nextId++,
          method: "execute",
          params: {
            contextId: request.contextId,
            method: request.method,
            argsJson: request.argsJson ?? {},
          },
        },
      });
      if (body.error !== undefined && body.error !== null) {
        throw toRpcError(body.error, request.method);
      }
      return body.result?.output ?? null;
    },

    /**
     * The context's sync state (JSON-RPC `sync_status`, core crates/server/src/jsonrpc/sync_status.rs):
     * `isInitialized` once its state is here, the phase, and the failures behind a back-off.
     */
    async syncStatus(contextId: string, call?: CallOptions): Promise<SyncStatus> {
      const body = await http.request<{ result?: Record<string, unknown>; error?: unknown }>({
        method: "POST",
        path: "/jsonrpc",
        envelope: false,
        expect: SHAPES.rpc,
        call,
        json: { jsonrpc: "2.0", id: nextId++, method: "sync_status", params: { contextId } },
      });
      if (body.error !== undefined && body.error !== null) {
        throw toRpcError(body.error, "sync_status");
      }
      const result = body.result ?? {};
      const state = result.syncState as Record<string, unknown> | undefined;
      return {
        isInitialized: result.isInitialized === true,
        syncState: typeof state?.state === "string" ? state.state : "unknown",
        ...(state ? { detail: state } : {}),
        failureCount: typeof result.failureCount === "number" ? result.failureCount : 0,
        ...(typeof result.lastError === "string" ? { lastError: result.lastError } : {}),
      };
    },
  };
}

/** A context's sync state as the node reports it. */
export interface SyncStatus {
  isInitialized: boolean;
  /** `idle`, `waitingForPeers`, `syncing`, `receivingSnapshot`, `backingOff` (or what a newer node says). */
  syncState: string;
  /** The phase as sent, with its fields (records received, retry in seconds). */
  detail?: Record<string, unknown>;
  failureCount: number;
  lastError?: string;
}

/** The JSON-RPC surface (`client.rpc`). */
export type RpcApi = ReturnType<typeof createRpcApi>;

function toRpcError(error: unknown, method: string): NodeRpcError {
  if (typeof error === "object" && error !== null) {
    const record = error as Record<string, unknown>;
    const type = typeof record.type === "string" ? record.type : "UnknownError";
    return new NodeRpcError(type, record.data ?? record.message, method);
  }
  return new NodeRpcError("UnknownError", error, method);
}
