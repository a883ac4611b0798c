// The admin API's namespaces and groups: a namespace is a root group bound to one app.
// Reached only through createAdminApi (admin.ts), which spreads these methods into `client.admin`.

import type { AdminCall } from "./admin_call.ts";
import type { CallOptions } from "./http.ts";
import { SHAPES } from "./shape.ts";
import type {
  GroupInfo,
  GroupMember,
  GroupMemberInput,
  Invitation,
  Namespace,
  SubgroupVisibility,
} from "./types.ts";

/** Joining a namespace waits for the inviter's peers. */
export const JOIN_NAMESPACE_TIMEOUT_MS = 65_000;
/** Nodes before 0.11.0-rc.21 require an upgrade policy when creating namespaces and groups; newer ones ignore it. */
const UPGRADE_POLICY = "LazyOnAccess";

const id = encodeURIComponent;

/** The namespace and group endpoints over an admin call, one method per endpoint. */
export function createGroupsApi(call: AdminCall) {
  return {
    /** `GET /namespaces`: one page. */
    listNamespaces: async (page: { offset?: number; limit?: number } = {}, o?: CallOptions) =>
      (await call<Namespace[] | null>("GET", "/namespaces", o, SHAPES.namespaces, {
        query: { offset: page.offset, limit: page.limit },
      })) ?? [],

    /**
     * `POST /namespaces` (sends upgradePolicy "LazyOnAccess": nodes before 0.11.0-rc.21 require it; core dropped
     * the field in fc4babde2 and, with no `deny_unknown_fields`, ignores it since).
     */
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
    /**
     * `POST /namespaces/:id/invite`: a signed invitation, valid for `validForSeconds` (core's default: a year). Its
     * `expiration_timestamp` is the moment it ends, in seconds since the epoch (create_group_invitation.rs).
     */
    inviteToNamespace: (
      namespaceId: string,
      o?: CallOptions,
      request: { validForSeconds?: number } = {},
    ) =>
      call<{ invitation: Invitation; groupName?: string }>(
        "POST",
        `/namespaces/${id(namespaceId)}/invite`,
        o,
        SHAPES.invitation,
        request.validForSeconds === undefined
          ? undefined
          : { json: { expirationTimestamp: request.validForSeconds } },
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
     * `POST /namespaces/:id/groups {groupName?, visibility?}`: core reads `groupName` and takes the visibility at
     * birth (crates/server/src/admin/handlers/namespaces/create_group_in_namespace.rs), so an open group never
     * exists as a restricted one first.
     */
    createGroupInNamespace: (
      namespaceId: string,
      group: { name?: string; visibility?: SubgroupVisibility } = {},
      o?: CallOptions,
    ) =>
      call<{ groupId: string }>(
        "POST",
        `/namespaces/${id(namespaceId)}/groups`,
        o,
        SHAPES.groupId,
        {
          json: {
            ...(group.name === undefined ? {} : { groupName: group.name }),
            ...(group.visibility === undefined ? {} : { visibility: group.visibility }),
          },
        },
      ),

    /**
     * `DELETE /groups/:id` with the JSON body `{}` the node requires: the group, its subgroups and their contexts
     * (core crates/context/src/handlers/delete_group.rs cascades; a namespace root is refused there).
     */
    deleteGroup: (groupId: string, o?: CallOptions) =>
      call<{ isDeleted?: boolean } | null>("DELETE", `/groups/${id(groupId)}`, o, undefined, {
        json: {},
      }),

    /**
     * `POST /groups/:id/sync {}`: fetches the group's state from peers; answers its summary (core
     * admin/handlers/groups/sync_group.rs).
     */
    syncGroup: (groupId: string, o?: CallOptions) =>
      call<
        { groupId: string; memberCount: number; contextCount: number; targetApplicationId: string }
      >(
        "POST",
        `/groups/${id(groupId)}/sync`,
        o,
        SHAPES.groupSync,
        { json: {} },
      ),

    /**
     * `POST /groups/:id/upgrade {targetApplicationId, cascade}`: moves the group's contexts (with cascade, its
     * subgroups' on the same app) to the target app (core crates/context/src/handlers/upgrade_group.rs).
     */
    upgradeGroup: (
      groupId: string,
      targetApplicationId: string,
      cascade: boolean,
      o?: CallOptions,
    ) =>
      call<GroupUpgradeAnswer>("POST", `/groups/${id(groupId)}/upgrade`, o, SHAPES.groupId, {
        json: { targetApplicationId, cascade },
      }),

    /** `POST /groups/:id/upgrade/retry {}`: retries the contexts whose swap failed (retry_group_upgrade.rs). */
    retryGroupUpgrade: (groupId: string, o?: CallOptions) =>
      call<GroupUpgradeAnswer>("POST", `/groups/${id(groupId)}/upgrade/retry`, o, SHAPES.groupId, {
        json: {},
      }),

    /** `GET /groups/:id/upgrade/status`: the group's last upgrade, or null (get_group_upgrade_status.rs). */
    groupUpgradeStatus: (groupId: string, o?: CallOptions) =>
      call<Record<string, unknown> | null>(
        "GET",
        `/groups/${id(groupId)}/upgrade/status`,
        o,
        SHAPES.health,
      ),

    /** `GET /groups/:ns/migration-status`: the members' migration rollup, a flat body (get_migration_status.rs). */
    migrationStatus: (namespaceId: string, o?: CallOptions) =>
      call<Record<string, unknown>>(
        "GET",
        `/groups/${id(namespaceId)}/migration-status`,
        o,
        SHAPES.migration,
      ),

    /** `POST /groups/:id/leave`: this node leaves a subgroup (core leave_group.rs; a namespace is refused). */
    leaveGroup: (groupId: string, o?: CallOptions) =>
      call<{ groupId: string; memberPublicKey: string }>(
        "POST",
        `/groups/${id(groupId)}/leave`,
        o,
        SHAPES.groupId,
      ),

    /** `POST /groups/:id/contexts/:ctx/remove {}`: the context no longer belongs to the group (core detach…rs). */
    detachContext: async (groupId: string, contextId: string, o?: CallOptions) => {
      await call("POST", `/groups/${id(groupId)}/contexts/${id(contextId)}/remove`, o, undefined, {
        json: {},
      });
    },

    /** `GET /groups/:id/subgroups`: a flat `{subgroups: [{groupId, name?}]}` (core list_subgroups.rs). */
    listSubgroups: async (groupId: string, o?: CallOptions) =>
      (await call<{ subgroups?: { groupId: string; name?: string }[] }>(
        "GET",
        `/groups/${id(groupId)}/subgroups`,
        o,
        SHAPES.subgroups,
      )).subgroups ?? [],

    /** `GET /namespaces/:id`: the namespace's summary (core namespaces/get_namespace.rs). */
    getNamespace: (namespaceId: string, o?: CallOptions) =>
      call<Namespace>("GET", `/namespaces/${id(namespaceId)}`, o, SHAPES.namespaceId),

    /** `GET /namespaces/:id/groups`: `[{groupId, name?}]`, its direct subgroups (list_namespace_groups.rs). */
    listNamespaceGroups: async (namespaceId: string, o?: CallOptions) =>
      (await call<{ groupId: string; name?: string }[] | null>(
        "GET",
        `/namespaces/${id(namespaceId)}/groups`,
        o,
        SHAPES.groupEntries,
      )) ?? [],

    /** `GET /groups/:id`. */
    getGroup: (groupId: string, o?: CallOptions) =>
      call<GroupInfo>("GET", `/groups/${id(groupId)}`, o, SHAPES.groupId),

    /** `POST /groups` (upgradePolicy as for namespaces); `parentGroupId` makes a subgroup. */
    createGroup: (
      request: { applicationId: string; name?: string; parentGroupId?: string },
      o?: CallOptions,
    ) =>
      call<{ groupId: string }>("POST", "/groups", o, SHAPES.groupId, {
        json: { ...request, upgradePolicy: UPGRADE_POLICY },
      }),

    /**
     * `GET /groups/:id/members?offset&limit` (a flat body on the wire). The node pages it: 100 members by
     * default, at most 1,000 a page (core crates/server/src/admin/handlers/groups/list_group_members.rs).
     */
    listGroupMembers: async (
      groupId: string,
      page: { offset?: number; limit?: number } = {},
      o?: CallOptions,
    ) => {
      const body = await call<{ members?: GroupMember[] } | null>(
        "GET",
        `/groups/${id(groupId)}/members`,
        o,
        SHAPES.members,
        { query: { offset: page.offset, limit: page.limit } },
      );
      return { members: body?.members ?? [] };
    },

    /** `POST /groups/:id/members`. */
    addGroupMembers: async (groupId: string, members: GroupMemberInput[], o?: CallOptions) => {
      await call("POST", `/groups/${id(groupId)}/members`, o, undefined, { json: { members } });
    },

    /** `GET /groups/:id/contexts`: `[{contextId, name?}]` (core list_group_contexts.rs). */
    listGroupContexts: async (
      groupId: string,
      page: { offset?: number; limit?: number } = {},
      o?: CallOptions,
    ) => {
      const body = await call<unknown>("GET", `/groups/${id(groupId)}/contexts`, o, undefined, {
        query: { offset: page.offset, limit: page.limit },
      });
      return (Array.isArray(body) ? body : []).filter((
        c,
      ): c is { contextId: string; name?: string } =>
        typeof c === "object" && c !== null &&
        typeof (c as { contextId?: unknown }).contextId === "string"
      );
    },

    /** `POST /groups/:id/members/remove {members: [account]}` (core remove_group_members.rs; a flat `{}`). */
    removeGroupMembers: async (groupId: string, accounts: string[], o?: CallOptions) => {
      await call("POST", `/groups/${id(groupId)}/members/remove`, o, undefined, {
        json: { members: accounts },
      });
    },

    /** `PUT /groups/:id/members/:account/role {role}` (core update_member_role.rs). */
    setMemberRole: async (groupId: string, account: string, role: string, o?: CallOptions) => {
      await call("PUT", `/groups/${id(groupId)}/members/${id(account)}/role`, o, undefined, {
        json: { role },
      });
    },

    /** `GET /groups/:id/members/:account/capabilities` → the capability bits (core get_member_capabilities.rs). */
    getMemberCapabilities: async (groupId: string, account: string, o?: CallOptions) => {
      const body = await call<{ capabilities?: unknown } | null>(
        "GET",
        `/groups/${id(groupId)}/members/${id(account)}/capabilities`,
        o,
        undefined,
      );
      return typeof body?.capabilities === "number" ? body.capabilities : 0;
    },

    /** `PUT /groups/:id/members/:account/capabilities {capabilities}` (core set_member_capabilities.rs). */
    setMemberCapabilities: async (
      groupId: string,
      account: string,
      capabilities: number,
      o?: CallOptions,
    ) => {
      await call(
        "PUT",
        `/groups/${id(groupId)}/members/${id(account)}/capabilities`,
        o,
        undefined,
        {
          json: { capabilities },
        },
      );
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

    /**
     * `GET /groups/:id/{contexts/:ctx | members/:account}/metadata`: the record people gave a context or a
     * member of the group, or null (core admin/handlers/groups/set_{context,member}_metadata.rs).
     */
    getTargetMetadata: (groupId: string, target: MetadataTarget, o?: CallOptions) =>
      call<{ name?: string | null; data?: Record<string, string> } | null>(
        "GET",
        `/groups/${id(groupId)}/${targetPath(target)}/metadata`,
        o,
        SHAPES.health,
      ),

    /** `PUT` of the same: `data` replaces the record's, an absent `name` keeps it. */
    setTargetMetadata: async (
      groupId: string,
      target: MetadataTarget,
      metadata: { name?: string; data: Record<string, string> },
      o?: CallOptions,
    ) => {
      await call("PUT", `/groups/${id(groupId)}/${targetPath(target)}/metadata`, o, undefined, {
        json: metadata,
      });
    },

    /** `PUT /groups/:id/settings/default-capabilities {defaultCapabilities}` (core set_default_capabilities.rs). */
    setDefaultCapabilities: async (groupId: string, bits: number, o?: CallOptions) => {
      await call("PUT", `/groups/${id(groupId)}/settings/default-capabilities`, o, undefined, {
        json: { defaultCapabilities: bits },
      });
    },

    /**
     * `PUT /groups/:id/members/:account/auto-follow {autoFollowContexts, autoFollowSubgroups}`: whether the
     * member joins the group's new contexts and subgroups by itself (core set_member_auto_follow.rs).
     */
    setMemberAutoFollow: async (
      groupId: string,
      account: string,
      follow: { contexts: boolean; subgroups: boolean },
      o?: CallOptions,
    ) => {
      await call("PUT", `/groups/${id(groupId)}/members/${id(account)}/auto-follow`, o, undefined, {
        json: { autoFollowContexts: follow.contexts, autoFollowSubgroups: follow.subgroups },
      });
    },

    /** `POST /groups/:id/join-via-inheritance`: joins an open subgroup. */
    joinGroupViaInheritance: (groupId: string, o?: CallOptions) =>
      call<{ groupId: string; memberPublicKey: string; wasInherited: boolean }>(
        "POST",
        `/groups/${id(groupId)}/join-via-inheritance`,
        o,
        SHAPES.groupId,
      ),
  };
}

/** What a group upgrade (or its retry) answers: its status and this node's per-context counts. */
export interface GroupUpgradeAnswer {
  groupId: string;
  status: string;
  localContextsTotal?: number | null;
  localContextsSwapped?: number | null;
  localContextsFailed?: number | null;
}

/** A context or a member of a group: what context and member metadata are kept for. */
export type MetadataTarget = { context: string } | { member: string };

function targetPath(target: MetadataTarget): string {
  return "context" in target
    ? `contexts/${encodeURIComponent(target.context)}`
    : `members/${encodeURIComponent(target.member)}`;
}
