// The node's admin API (`/admin-api/...`, node.md §2) as plain async methods, one per endpoint.
// Ids in paths are URL-encoded; every method takes CallOptions last; payloads come back unwrapped and
// checked against what callers read (shape.ts), so a wrong-shaped answer fails here, with the endpoint.

import { BLOB_ANSWER_LIMIT } from "./body.ts";
import type { CallOptions, HttpCore, RequestSpec } from "./http.ts";
import { type Shape, SHAPES } from "./shape.ts";
import type {
  AbiManifest,
  Application,
  BlobInfo,
  Context,
  GroupInfo,
  GroupMember,
  GroupMemberInput,
  Invitation,
  Namespace,
  NodeIdentity,
  SubgroupVisibility,
} from "./types.ts";

/** Installing downloads and compiles the bundle inside one request. */
export const INSTALL_TIMEOUT_MS = 300_000;
/** Joining a namespace waits for the inviter's peers. */
export const JOIN_NAMESPACE_TIMEOUT_MS = 65_000;
/** Released nodes still require an upgrade policy when creating namespaces and groups. */
const UPGRADE_POLICY = "LazyOnAccess";

const id = encodeURIComponent;

/** Builds the admin API over an HTTP core. */
export function createAdminApi(http: HttpCore) {
  const call = <T>(
    method: RequestSpec["method"],
    path: string,
    options: CallOptions | undefined,
    expect: Shape | undefined,
    extra: Partial<RequestSpec> = {},
  ) => http.request<T>({ method, path: `/admin-api${path}`, call: options, expect, ...extra });

  return {
    /** `GET /health` (public): `{ status: "alive" }`. */
    health: (o?: CallOptions) =>
      call<{ status: string } | null>("GET", "/health", o, SHAPES.health),

    /** `GET /identity`: the node's account, device and signing key; 404 before it has one. */
    identity: (o?: CallOptions) => call<NodeIdentity>("GET", "/identity", o, SHAPES.identity),

    /** `GET /applications`: every installed application. */
    listApplications: (o?: CallOptions) =>
      call<{ apps: Application[] }>("GET", "/applications", o, SHAPES.apps),

    /** `GET /applications/:id`. */
    getApplication: (appId: string, o?: CallOptions) =>
      call<{ application: Application }>(
        "GET",
        `/applications/${id(appId)}`,
        o,
        SHAPES.application,
      ),

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
    installDevApplication: (app: { path: string; metadata?: number[] }, o?: CallOptions) =>
      call<{ applicationId: string }>("POST", "/install-dev-application", o, SHAPES.applicationId, {
        json: { path: app.path, metadata: app.metadata ?? [] },
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

    /** `GET /alias/list/context`: alias → context id. */
    listContextAliases: async (o?: CallOptions) =>
      (await call<Record<string, string> | null>(
        "GET",
        "/alias/list/context",
        o,
        SHAPES.aliases,
      )) ??
        {},

    /** `GET /namespaces`: one page. */
    listNamespaces: async (page: { offset?: number; limit?: number } = {}, o?: CallOptions) =>
      (await call<Namespace[] | null>("GET", "/namespaces", o, SHAPES.namespaces, {
        query: { offset: page.offset, limit: page.limit },
      })) ?? [],

    /** `POST /namespaces` (sends upgradePolicy "LazyOnAccess", which released nodes require). */
    createNamespace: (request: { applicationId: string; name?: string }, o?: CallOptions) =>
      call<{ namespaceId: string }>("POST", "/namespaces", o, SHAPES.namespaceId, {
        json: { ...request, upgradePolicy: UPGRADE_POLICY },
      }),

    /** `DELETE /namespaces/:id` with the JSON body `{}` the node requires. */
    deleteNamespace: (namespaceId: string, o?: CallOptions) =>
      call<{ isDeleted: boolean } | null>(
        "DELETE",
        `/namespaces/${id(namespaceId)}`,
        o,
        SHAPES.deleted,
        { json: {} },
      ),

    /** `POST /namespaces/:id/invite`: a signed invitation for another node. */
    inviteToNamespace: (namespaceId: string, o?: CallOptions) =>
      call<{ invitation: Invitation; groupName?: string }>(
        "POST",
        `/namespaces/${id(namespaceId)}/invite`,
        o,
        SHAPES.invitation,
      ),

    /**
     * `POST /namespaces/:id/join` (65 s default timeout). The invitation is sent exactly as given
     * (same keys, same order, exact integers). Older nodes answer `groupId`; both map to `namespaceId`.
     */
    joinNamespace: async (
      namespaceId: string,
      request: { invitation: Invitation; groupName?: string },
      o?: CallOptions,
    ) => {
      const joined = await call<Record<string, unknown>>(
        "POST",
        `/namespaces/${id(namespaceId)}/join`,
        o,
        SHAPES.joinedNamespace,
        { json: request, timeoutMs: JOIN_NAMESPACE_TIMEOUT_MS },
      );
      const { namespaceId: ns, groupId, memberIdentity, memberAccount } = joined;
      return {
        namespaceId: String(ns ?? groupId ?? namespaceId),
        memberIdentity: memberIdentity as string,
        memberAccount: memberAccount as string,
      };
    },

    /** `POST /namespaces/:id/leave`. */
    leaveNamespace: async (namespaceId: string, o?: CallOptions) => {
      await call("POST", `/namespaces/${id(namespaceId)}/leave`, o, undefined);
    },

    /**
     * `POST /namespaces/:id/groups`. The name goes out as both `name` (node.md) and `groupName`
     * (what current nodes read); a node ignores the key it does not know.
     */
    createGroupInNamespace: (namespaceId: string, group: { name?: string } = {}, o?: CallOptions) =>
      call<{ groupId: string }>(
        "POST",
        `/namespaces/${id(namespaceId)}/groups`,
        o,
        SHAPES.groupId,
        {
          json: group.name === undefined ? {} : { name: group.name, groupName: group.name },
        },
      ),

    /** `GET /groups/:id`. */
    getGroup: (groupId: string, o?: CallOptions) =>
      call<GroupInfo>("GET", `/groups/${id(groupId)}`, o, SHAPES.groupId),

    /** `POST /groups` (sends upgradePolicy "LazyOnAccess"); `parentGroupId` makes a subgroup. */
    createGroup: (
      request: { applicationId: string; name?: string; parentGroupId?: string },
      o?: CallOptions,
    ) =>
      call<{ groupId: string }>("POST", "/groups", o, SHAPES.groupId, {
        json: { ...request, upgradePolicy: UPGRADE_POLICY },
      }),

    /** `GET /groups/:id/members` (a flat body on the wire). */
    listGroupMembers: async (groupId: string, o?: CallOptions) => {
      const body = await call<{ members?: GroupMember[] } | null>(
        "GET",
        `/groups/${id(groupId)}/members`,
        o,
        SHAPES.members,
      );
      return { members: body?.members ?? [] };
    },

    /** `POST /groups/:id/members`. */
    addGroupMembers: async (groupId: string, members: GroupMemberInput[], o?: CallOptions) => {
      await call("POST", `/groups/${id(groupId)}/members`, o, undefined, { json: { members } });
    },

    /** `PUT /groups/:id/settings/subgroup-visibility`. */
    setSubgroupVisibility: async (
      groupId: string,
      visibility: SubgroupVisibility,
      o?: CallOptions,
    ) => {
      await call("PUT", `/groups/${id(groupId)}/settings/subgroup-visibility`, o, undefined, {
        json: { subgroupVisibility: visibility },
      });
    },

    /** `PUT /groups/:id/metadata`: replaces the record (`data` defaults to `{}` on the node). */
    setGroupMetadata: async (
      groupId: string,
      metadata: { name?: string; data?: Record<string, string> },
      o?: CallOptions,
    ) => {
      await call("PUT", `/groups/${id(groupId)}/metadata`, o, undefined, { json: metadata });
    },

    /** `POST /groups/:id/join-via-inheritance`: joins an open subgroup. */
    joinGroupViaInheritance: (groupId: string, o?: CallOptions) =>
      call<{ groupId: string; memberPublicKey: string; wasInherited: boolean }>(
        "POST",
        `/groups/${id(groupId)}/join-via-inheritance`,
        o,
        SHAPES.groupId,
      ),

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
