// The node's admin API (`/admin-api/...`) as plain async methods, one per endpoint.
// Ids in paths are URL-encoded; every method takes CallOptions last; payloads come back unwrapped and
// checked against what callers read (shape.ts), so a wrong-shaped answer fails here, with the endpoint.
// Namespaces and groups live in admin_groups.ts; this module is the single entry, createAdminApi.

import { adminCall } from "./admin_call.ts";
import { createGroupsApi } from "./admin_groups.ts";
import { BLOB_ANSWER_LIMIT } from "./body.ts";
import type { AnswerMemo, CallOptions, HttpCore } from "./http.ts";
import { SHAPES } from "./shape.ts";
import type {
  AbiManifest,
  Application,
  BlobInfo,
  Context,
  NamespaceUsage,
  NetworkStatus,
  NodeIdentity,
} from "./types.ts";
import { answeredStatus, NodeHttpError } from "./http_error.ts";

/** Installing downloads and compiles the bundle inside one request. */
export const INSTALL_TIMEOUT_MS = 300_000;

/**
 * How long `POST /contexts/:id/join` may take: core looks for the context's group for up to 30 s (syncing the
 * namespaces it knows) before it answers (crates/context/src/handlers/join_context.rs), so the default
 * 10 s would give up while the node still looks.
 */
export const JOIN_CONTEXT_TIMEOUT_MS = 40_000;

const id = encodeURIComponent;

/** The most endpoints (one per app id) an answer memo is kept for; the least recently used goes first. */
const MEMO_KEYS = 64;

/** An answer memo per key (an app id), at most MEMO_KEYS of them. */
function memoByKey(): (key: string) => AnswerMemo {
  const memos = new Map<string, AnswerMemo>();
  return (key) => {
    let memo = memos.get(key);
    if (memo) memos.delete(key);
    else memo = { text: null, value: null };
    memos.set(key, memo);
    if (memos.size > MEMO_KEYS) memos.delete(memos.keys().next().value!);
    return memo;
  };
}

/** Builds the admin API over an HTTP core. */
export function createAdminApi(http: HttpCore) {
  const call = adminCall(http);
  const appsMemo: AnswerMemo = { text: null, value: null };
  // Every app call reads its app's record and contexts: an unchanged answer is the payload already checked.
  const recordMemos = memoByKey();
  const contextMemos = memoByKey();

  return {
    /** `GET /health` (public): `{ status: "alive" }`. */
    health: (o?: CallOptions) =>
      call<{ status: string } | null>("GET", "/health", o, SHAPES.nodeHealth),

    /**
     * `GET /ready` (public): "ready", or the label core's 503 carries — "starting", "shutting_down" or
     * "store_unavailable" (core crates/server/src/admin/service.rs `readiness_check_handler`).
     */
    ready: async (o?: CallOptions): Promise<string> => {
      try {
        const answer = await call<{ status?: unknown } | null>("GET", "/ready", o, SHAPES.health);
        return typeof answer?.status === "string" ? answer.status : "ready";
      } catch (error) {
        const label = error instanceof NodeHttpError && error.status === 503
          ? answeredStatus(error)
          : null;
        if (label !== null) return label;
        throw error;
      }
    },

    /** `GET /peers`: how many peers the node is connected to, `{count}` unwrapped (core handlers/peers.rs). */
    peers: async (o?: CallOptions): Promise<number> =>
      (await call<{ count: number }>("GET", "/peers", o, SHAPES.peers)).count,

    /** `GET /network/status`: the libp2p connectivity snapshot, unwrapped (core handlers/network/status.rs). */
    networkStatus: (o?: CallOptions) =>
      call<NetworkStatus>("GET", "/network/status", o, SHAPES.networkStatus),

    /** `GET /usage`: per-namespace counts and approximate bytes, `{namespaces}` (core handlers/usage.rs). */
    usage: (o?: CallOptions) =>
      call<{ namespaces: NamespaceUsage[] }>("GET", "/usage", o, SHAPES.usage),

    /**
     * `POST /admin/client-key` (embedded auth, outside `/admin-api`): a client key's token pair, minted with an
     * admin token, with `context[<id>,<identity>]` when both are named and the permissions asked for (core
     * crates/auth/src/api/handlers/client_keys.rs). The pair is a secret: callers keep it out of results and logs.
     */
    createClientKey: (
      request: { permissions: string[]; contextId?: string; contextIdentity?: string },
      o?: CallOptions,
    ) =>
      http.request<{ access_token: string; refresh_token: string }>({
        method: "POST",
        path: "/admin/client-key",
        call: o,
        expect: SHAPES.tokenPair,
        json: {
          permissions: request.permissions,
          ...(request.contextId !== undefined
            ? { context_id: request.contextId, context_identity: request.contextIdentity }
            : {}),
        },
      }),

    /** `GET /identity`: the node's account, device and signing key; 404 before it has one. */
    identity: (o?: CallOptions) => call<NodeIdentity>("GET", "/identity", o, SHAPES.identity),

    /** `GET /applications`: every installed application; an unchanged list is the same object as before. */
    listApplications: async (o?: CallOptions) => {
      const answer = await call<{ apps: Application[] }>("GET", "/applications", o, SHAPES.apps, {
        memo: appsMemo,
      });
      answer.apps.forEach(withoutPlaceholders);
      return answer;
    },

    /** `GET /applications/:id`. */
    getApplication: async (appId: string, o?: CallOptions) => {
      const answer = await call<{ application: Application }>(
        "GET",
        `/applications/${id(appId)}`,
        o,
        SHAPES.application,
        { memo: recordMemos(appId) },
      );
      if (answer?.application) withoutPlaceholders(answer.application);
      return answer;
    },

    /** `GET /applications/:id/abi`; `serviceName` picks one service of a multi-service bundle. */
    getApplicationAbi: (appId: string, serviceName?: string, o?: CallOptions) =>
      call<AbiManifest>("GET", `/applications/${id(appId)}/abi`, o, undefined, {
        query: { service_name: serviceName },
      }),

    /** `POST /install-application`: the node downloads `url` itself (300 s default timeout). */
    installApplication: (
      app: { url: string; hash?: string; metadata?: number[]; package?: string; version?: string },
      o?: CallOptions,
    ) =>
      call<{ applicationId: string }>("POST", "/install-application", o, SHAPES.applicationId, {
        json: { ...app, metadata: app.metadata ?? [] },
        timeoutMs: INSTALL_TIMEOUT_MS,
      }),

    /** `POST /install-dev-application`: installs from a path on the node's machine. */
    installDevApplication: (
      app: { path: string; metadata?: number[]; package?: string; version?: string },
      o?: CallOptions,
    ) =>
      call<{ applicationId: string }>("POST", "/install-dev-application", o, SHAPES.applicationId, {
        // A raw .wasm from a path is recorded with `package`/`version` when given (core install.rs).
        json: {
          path: app.path,
          metadata: app.metadata ?? [],
          ...(app.package !== undefined ? { package: app.package } : {}),
          ...(app.version !== undefined ? { version: app.version } : {}),
        },
        timeoutMs: INSTALL_TIMEOUT_MS,
      }),

    /** `DELETE /applications/:id`. */
    uninstallApplication: (appId: string, o?: CallOptions) =>
      call<{ applicationId: string } | null>(
        "DELETE",
        `/applications/${id(appId)}`,
        o,
        SHAPES.uninstalled,
      ),

    /** `GET /contexts`: one page (the node's default page is 100). */
    listContexts: (page: { offset?: number; limit?: number } = {}, o?: CallOptions) =>
      call<{ contexts: Context[] }>("GET", "/contexts", o, SHAPES.contexts, {
        query: { offset: page.offset, limit: page.limit },
      }),

    /** `GET /contexts/:id`. */
    getContext: (contextId: string, o?: CallOptions) =>
      call<Context>("GET", `/contexts/${id(contextId)}`, o, SHAPES.context),

    /** `GET /contexts/:id/group`: the group the context belongs to (hex), or null (get_context_group.rs). */
    contextGroup: (contextId: string, o?: CallOptions) =>
      call<string | null>("GET", `/contexts/${id(contextId)}/group`, o, SHAPES.groupIdOrNull),

    /** `DELETE /contexts/:id`. */
    deleteContext: (contextId: string, o?: CallOptions) =>
      call<{ isDeleted: boolean } | null>(
        "DELETE",
        `/contexts/${id(contextId)}`,
        o,
        SHAPES.deleted,
      ),

    /** `GET /contexts/for-application/:appId`. */
    listContextsForApplication: (appId: string, o?: CallOptions) =>
      call<{ contexts: Context[] }>(
        "GET",
        `/contexts/for-application/${id(appId)}`,
        o,
        SHAPES.contexts,
        { memo: contextMemos(appId) },
      ),

    /** `POST /contexts`: `initializationParams` are the UTF-8 bytes of the init arguments' JSON. */
    createContext: (
      request: {
        applicationId: string;
        groupId: string;
        initializationParams: number[];
        serviceName?: string;
        name?: string;
      },
      o?: CallOptions,
    ) =>
      call<{
        contextId: string;
        memberPublicKey: string;
        groupId?: string;
        groupCreated?: boolean;
      }>("POST", "/contexts", o, SHAPES.memberOfContext, { json: request }),

    /** `POST /contexts/:id/join`. */
    joinContext: (contextId: string, o?: CallOptions) =>
      call<{ contextId: string; memberPublicKey: string }>(
        "POST",
        `/contexts/${id(contextId)}/join`,
        o,
        SHAPES.memberOfContext,
        { timeoutMs: JOIN_CONTEXT_TIMEOUT_MS },
      ),

    /** `POST /contexts/:id/leave`: this node leaves locally, publishing nothing (core leave_context.rs). */
    leaveContext: (contextId: string, o?: CallOptions) =>
      call<{ contextId: string; memberPublicKey: string }>(
        "POST",
        `/contexts/${id(contextId)}/leave`,
        o,
        SHAPES.memberOfContext,
      ),

    /** `POST /contexts/sync/:id` (every context without one): asks the node to sync now (core sync.rs). */
    syncContext: async (contextId: string | null, o?: CallOptions) => {
      const path = contextId === null ? "/contexts/sync" : `/contexts/sync/${id(contextId)}`;
      await call("POST", path, o, undefined);
    },

    /**
     * `POST /contexts/:id/application {applicationId, executorPublicKey}`: the context runs another app (version)
     * from now on, the executor one of this node's identities in it (core crates/context/src/handlers/
     * update_application/mod.rs: same signer, no signed → unsigned).
     */
    updateContextApplication: async (
      contextId: string,
      applicationId: string,
      executorPublicKey: string,
      o?: CallOptions,
    ) => {
      await call("POST", `/contexts/${id(contextId)}/application`, o, undefined, {
        json: { applicationId, executorPublicKey },
      });
    },

    /**
     * `POST /contexts/:id/resync {force}`: a snapshot resync from a peer, which discards the context's local DAG
     * heads; refused (untyped) outside a group and, without `force`, while there are local heads (core
     * crates/context/src/handlers/resync_context.rs). A flat `{contextId (hex), resyncStarted}`.
     */
    resyncContext: (contextId: string, force: boolean, o?: CallOptions) =>
      call<{ contextId: string; resyncStarted: boolean }>(
        "POST",
        `/contexts/${id(contextId)}/resync`,
        o,
        SHAPES.resync,
        { json: { force } },
      ),

    /** `GET /contexts/:id/identities` (or `identities-owned` with `owned`). */
    getContextIdentities: (contextId: string, filter: { owned?: boolean } = {}, o?: CallOptions) =>
      call<{ identities: string[] }>(
        "GET",
        `/contexts/${id(contextId)}/${filter.owned ? "identities-owned" : "identities"}`,
        o,
        SHAPES.identities,
      ),

    /** `POST /alias/create/context`: points `alias` at a context. */
    createContextAlias: async (alias: string, contextId: string, o?: CallOptions) => {
      await call("POST", "/alias/create/context", o, undefined, { json: { alias, contextId } });
    },

    /** `POST /alias/lookup/context/:name`: the context id, or null when no such alias exists. */
    lookupContextAlias: async (name: string, o?: CallOptions) => {
      const found = await call<{ value?: string | null }>(
        "POST",
        `/alias/lookup/context/${id(name)}`,
        o,
        SHAPES.aliasLookup,
      );
      return found.value ?? null;
    },

    /**
     * `POST /alias/delete/context/:name`: idempotent, an absent alias is deleted as well (core
     * crates/server/src/admin/handlers/alias/delete_alias.rs).
     */
    deleteContextAlias: async (name: string, o?: CallOptions) => {
      await call("POST", `/alias/delete/context/${id(name)}`, o, undefined, { json: {} });
    },

    /** `GET /alias/list/context`: alias → context id. */
    listContextAliases: async (o?: CallOptions) =>
      (await call<Record<string, string> | null>(
        "GET",
        "/alias/list/context",
        o,
        SHAPES.aliases,
      )) ??
        {},

    ...createGroupsApi(call),

    /** `PUT /blobs` with the raw bytes. */
    uploadBlob: async (
      bytes: Uint8Array,
      target: { hash?: string; contextId?: string } = {},
      o?: CallOptions,
    ): Promise<BlobInfo> =>
      toBlobInfo(
        await call("PUT", "/blobs", o, SHAPES.blob, {
          bytes,
          query: { hash: target.hash, context_id: target.contextId },
        }),
      ),

    /** `GET /blobs`. */
    listBlobs: async (o?: CallOptions): Promise<{ blobs: BlobInfo[] }> => {
      const body = await call<{ blobs: unknown[] } | null>("GET", "/blobs", o, SHAPES.blobs);
      return { blobs: (body?.blobs ?? []).map(toBlobInfo) };
    },

    /** `DELETE /blobs/:id` (a flat body on the wire; 403 while an app references the blob). */
    deleteBlob: async (blobId: string, o?: CallOptions) => {
      const body = await call<Record<string, unknown> | null>(
        "DELETE",
        `/blobs/${id(blobId)}`,
        o,
        SHAPES.deletedBlob,
      );
      return {
        blobId: String(body?.blob_id ?? body?.blobId ?? blobId),
        deleted: body?.deleted === true,
      };
    },

    /** `GET /blobs/:id`: the blob's raw bytes, at most BLOB_ANSWER_LIMIT of them. */
    getBlob: (blobId: string, o?: CallOptions) =>
      call<Uint8Array>("GET", `/blobs/${id(blobId)}`, o, undefined, {
        response: "bytes",
        maxBytes: BLOB_ANSWER_LIMIT,
      }),
  };
}

/** The admin API surface (`client.admin`). */
export type AdminApi = ReturnType<typeof createAdminApi>;

function toBlobInfo(value: unknown): BlobInfo {
  const record = (value ?? {}) as Record<string, unknown>;
  return { blobId: String(record.blob_id ?? record.blobId ?? ""), size: Number(record.size ?? 0) };
}

/**
 * A raw `.wasm` installed without a package is recorded by core as package `unknown`, version `0.0.0` and no signer
 * (crates/node/primitives/src/client/application/install.rs, :301-303, :422-424): placeholders, not
 * names. They are removed (in place: the record is the node's answer, parsed here), so such an app is known by its
 * metadata name and id, and two of them never share the name `unknown`.
 */
export function withoutPlaceholders(app: Application): void {
  if (app.package === "unknown" && (app.version === "0.0.0" || !app.version) && !app.signer_id) {
    delete app.package;
    delete app.version;
  }
}
