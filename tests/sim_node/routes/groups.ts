// Namespace and group routes: pages of namespaces, create (upgradePolicy ignored), delete with a
// JSON body, signed invitations and joins, leave, subgroups, members (flat body), visibility,
// metadata and join-via-inheritance.

import { data, json, jsonError, refusal } from "../http.ts";
import {
  createGroup,
  groupJson,
  isMemberOf,
  joinViaInheritance,
  memberAccount,
  namespaceJson,
  ROLES,
  subgroups,
  visibleGroup,
} from "../groups.ts";
import { isBase58Id } from "../ids.ts";
import { autoFollow, moveContextApp } from "../contexts.ts";
import { EXPIRED, makeInvitation, verifyInvitation } from "../invitation.ts";
import { network } from "../network.ts";
import {
  bodyObject,
  invalidField,
  missingField,
  notAnObject,
  type Route,
  type RouteCtx,
} from "../router.ts";

const A = "/admin-api";

/** A group as core's group lists name it: `{groupId, name?}`. */
const groupEntry = (g: { id: string; name: string | null }) => ({
  groupId: g.id,
  ...(g.name === null ? {} : { name: g.name }),
});
const notFound = () => jsonError(404, "Group not found");

/** core MemberCapabilities::CAN_MANAGE_METADATA (crates/context/config/src/lib.rs). */
const MANAGE_METADATA = 1 << 8;
/** core MemberCapabilities::CAN_DELETE_SUBGROUP (crates/context/config/src/lib.rs). */
const DELETE_SUBGROUP = 1 << 6;

/** A group and every group under it. */
function subtree(g: NonNullable<ReturnType<typeof visibleGroup>>): typeof g[] {
  return [g, ...subgroups(g).flatMap(subtree)];
}

/**
 * How core writes ids in an untyped message: `{:?}` of a group id is `ContextGroupId(Identity([…32 bytes…]))`, of
 * a public key `PublicKey(Hash("base58"))` (crates/context/config/src/types.rs, crates/primitives/src/hash.rs).
 */
const debugGroup = (id: string) =>
  `ContextGroupId(Identity([${id.match(/../g)!.map((h) => parseInt(h, 16)).join(", ")}]))`;
const debugKey = (key: string) => `PublicKey(Hash("${key}"))`;

/**
 * Only a group's Admin changes its members, whatever capabilities it holds: `governance_preflight(group,
 * require_admin = true)` (core crates/context/src/lib.rs; remove_group_members.rs,
 * update_member_role.rs, set_member_capabilities.rs), whose `MembershipError::NotAdmin` is a bare 500 at
 * 051f0848 and a 403 with its message on newer core (`membership_refusal_status`).
 */
function notAdmin(
  node: RouteCtx["node"],
  g: NonNullable<ReturnType<typeof visibleGroup>>,
): Response | null {
  if (g.members.get(node.identity.accountId) === "Admin") return null;
  return refusal(
    node,
    403,
    `identity ${debugKey(node.identity.publicKey)} is not an admin of group ${debugGroup(g.id)}`,
  );
}

function createNamespace({ node, body }: RouteCtx): Response {
  const input = bodyObject(body);
  if (!input) return notAnObject();
  if (input.applicationId === undefined) return missingField("applicationId");
  // `upgradePolicy` is gone from core since rc.21 (fc4babde2): sent or not, it is ignored.
  if (typeof input.applicationId !== "string" || !isBase58Id(input.applicationId)) {
    return invalidField("applicationId", "a base58 application id");
  }
  if (!node.apps.has(input.applicationId)) return jsonError(404, "Application not found");
  const group = createGroup(node, {
    applicationId: input.applicationId,
    name: input.name as string | undefined,
  });
  return data({ namespaceId: group.id });
}

function createGroupRoute({ node, body }: RouteCtx): Response {
  const input = bodyObject(body);
  if (!input) return notAnObject();
  if (input.applicationId === undefined) return missingField("applicationId");
  const parentId = input.parentGroupId as string | undefined;
  if (parentId && !visibleGroup(node, parentId)) return jsonError(404, "Parent group not found");
  const group = createGroup(node, {
    applicationId: input.applicationId as string,
    name: input.name as string | undefined,
    parentId,
  });
  return data({ groupId: group.id });
}

function join({ node, params, body }: RouteCtx): Response {
  const input = bodyObject(body);
  if (!input) return notAnObject();
  if (input.invitation === undefined) return missingField("invitation");
  const verified = verifyInvitation(input.invitation);
  if (verified === EXPIRED) return refusal(node, 400, EXPIRED);
  if (typeof verified === "string") return jsonError(400, verified);
  if (verified.groupId !== params.namespace.toLowerCase()) {
    return jsonError(
      400,
      `The invitation is for namespace ${verified.groupId}, not ${params.namespace}`,
    );
  }
  const group = network.groups.get(verified.groupId);
  if (!group || group.deleted) return jsonError(404, "Namespace not found on the network");
  // An account an admin removed is not readmitted by any invitation (core MembershipError::RemovedFromGroup: a bare
  // 500 at 051f0848, 409 on newer core).
  if (group.removed.has(node.identity.accountId)) {
    return refusal(
      node,
      409,
      `identity ${node.identity.accountId} was removed from group ${group.id} and cannot rejoin; an admin must re-add them`,
    );
  }
  if (!group.members.has(node.identity.accountId)) {
    group.members.set(node.identity.accountId, verified.role);
    // A new member starts with the group's default capabilities (core set_default_capabilities.rs).
    if (group.defaultCapabilities !== 0) {
      group.capabilities.set(node.identity.accountId, group.defaultCapabilities);
    }
  }
  network.keyAccounts.set(node.identity.publicKey, node.identity.accountId);
  node.namespaces.add(group.id);
  // The new member follows the namespace's contexts by itself; each holds no state until it syncs.
  for (const core of network.contexts.values()) {
    if (core.groupId === group.id) autoFollow(node, core);
  }
  return data({
    namespaceId: group.id,
    memberIdentity: node.identity.publicKey,
    memberAccount: node.identity.accountId,
  });
}

/**
 * `POST /groups/:id/members` (core add_group_members.rs, a ValidatedJson route): `ReadOnlyTee` and an empty list
 * are refused by validation (admin/mod.rs, AddGroupMembersApiRequest); an account is taken as given, a key must
 * resolve to one or the untyped failure is a bare "Internal server error" (member_account.rs, service.rs); the
 * answer is a flat `{}`.
 */
function addMembers({ node, params, body }: RouteCtx): Response {
  const group = visibleGroup(node, params.group);
  if (!group) return notFound();
  // Admin only, as every member change: governance_preflight(group, require_admin = true) in core
  // add_group_members.rs (a bare 500 at 051f0848; the real merod answers so).
  const refused = notAdmin(node, group);
  if (refused) return refused;
  const input = bodyObject(body);
  if (!input) return notAnObject();
  if (!Array.isArray(input.members)) return missingField("members");
  if (input.members.length === 0) {
    return jsonError(400, "Field 'members' is required but was empty");
  }
  const members = input.members as Record<string, unknown>[];
  for (const member of members) {
    if (memberAccount(member?.identity) === null) {
      return invalidField("members.identity", "a base58 public key or a 64-hex account");
    }
    if (!ROLES.includes(member.role as string)) {
      return invalidField("members.role", `one of ${ROLES.join(", ")}`);
    }
    if (member.role === "ReadOnlyTee") {
      return jsonError(
        400,
        "Field 'members[].role' has invalid format: ReadOnlyTee role can only be assigned via TEE attestation",
      );
    }
  }
  const accepted: [string, string][] = [];
  for (const member of members) {
    const account = memberAccount(member.identity);
    if (account === undefined || account === null) return jsonError(500, "Internal server error");
    accepted.push([account, member.role as string]);
  }
  for (const [account, role] of accepted) {
    group.members.set(account, role);
    group.removed.delete(account);
    // A new member starts with the group's default capabilities (core set_default_capabilities.rs).
    if (group.defaultCapabilities !== 0) group.capabilities.set(account, group.defaultCapabilities);
  }
  return json({});
}

function setVisibility({ node, params, body }: RouteCtx): Response {
  const group = visibleGroup(node, params.group);
  if (!group) return notFound();
  const value = bodyObject(body)?.subgroupVisibility;
  if (value === undefined) return missingField("subgroupVisibility");
  const lower = typeof value === "string" ? value.toLowerCase() : "";
  if (lower !== "open" && lower !== "restricted") {
    return invalidField("subgroupVisibility", "open or restricted");
  }
  group.visibility = lower;
  return data(null);
}

function setMetadata({ node, params, body }: RouteCtx): Response {
  const group = visibleGroup(node, params.group);
  if (!group) return notFound();
  const input = bodyObject(body);
  if (!input) return notAnObject();
  if (input.name !== undefined) group.metadata.name = group.name = input.name as string | null;
  // `data` defaults to `{}` when omitted, replacing what was there (core admin/mod.rs, SetMetadataApiRequest).
  group.metadata.data = input.data ?? {};
  return data(null);
}

const withGroup =
  (handler: (ctx: RouteCtx, g: NonNullable<ReturnType<typeof visibleGroup>>) => Response) =>
  (ctx: RouteCtx) => {
    const group = visibleGroup(ctx.node, ctx.params.group ?? ctx.params.namespace);
    return group ? handler(ctx, group) : notFound();
  };

/** The namespace and group routes. */
export const groupRoutes: Route[] = [
  {
    method: "GET",
    pattern: `${A}/namespaces`,
    handler: ({ node, url }) => {
      const offset = Number(url.searchParams.get("offset") ?? 0) || 0;
      const limit = Number(url.searchParams.get("limit") ?? 100) || 100;
      const all = [...node.namespaces].map((id) => network.groups.get(id)!)
        .filter((g) => g && !g.deleted).map(namespaceJson);
      return data(all.slice(offset, offset + limit));
    },
  },
  {
    method: "POST",
    pattern: `${A}/namespaces`,
    json: true,
    validated: true,
    handler: createNamespace,
  },
  {
    method: "GET",
    pattern: `${A}/namespaces/:namespace`,
    // Only a root group, and only to a member: a subgroup or a non-member's read is a 404 "Namespace not found"
    // (core crates/governance-store/src/metadata.rs `build_namespace_summary`, namespaces/get_namespace.rs).
    handler: withGroup(({ node }, g) =>
      g.parentId === null && g.members.has(node.identity.accountId)
        ? data(namespaceJson(g))
        : jsonError(404, "Namespace not found")
    ),
  },
  {
    method: "DELETE",
    pattern: `${A}/namespaces/:namespace`,
    json: true,
    validated: true,
    handler: withGroup(({ node }, g) => {
      g.deleted = true;
      node.namespaces.delete(g.id);
      return data({ isDeleted: true });
    }),
  },
  {
    method: "POST",
    pattern: `${A}/namespaces/:namespace/invite`,
    json: true,
    validated: true,
    // Only a root group (a namespace) is invited to: a subgroup is a 400 (core admin/handlers/namespaces/
    // invite_namespace.rs).
    handler: withGroup(({ node, body }, g) => {
      if (g.parentId !== null) {
        return jsonError(400, "namespace_id must reference a root group (namespace)");
      }
      // `expirationTimestamp` in the request is how many seconds it stays valid; default a year
      // (CreateGroupInvitationApiRequest; invite_namespace.rs).
      const asked = bodyObject(body)?.expirationTimestamp;
      const validFor = typeof asked === "number" && asked > 0 ? asked : undefined;
      return data({
        invitation: makeInvitation(node, g, validFor),
        groupName: g.name ?? undefined,
      });
    }),
  },
  {
    method: "POST",
    pattern: `${A}/namespaces/:namespace/join`,
    json: true,
    validated: true,
    // A real merod answers a join after about 2 s (the group's key delivery and first sync: measured on two
    // merods at 051f0848); the refusals come at once.
    handler: async (ctx) => {
      const answer = join(ctx);
      if (answer.ok && ctx.node.namespaceJoinMs > 0) {
        await new Promise((resolve) => setTimeout(resolve, ctx.node.namespaceJoinMs));
      }
      return answer;
    },
  },
  {
    method: "POST",
    pattern: `${A}/namespaces/:namespace/leave`,
    json: true,
    // core answers {data:{namespaceId, memberPublicKey}} (leave_namespace.rs).
    handler: withGroup(({ node }, g) => {
      // The owner never leaves, and the last admin neither (governance-store ops/group/member_left.rs:
      // OwnerCannotSelfLeave, LastAdmin): bare 500s at 051f0848, as the real merod answers.
      const me = node.identity.accountId;
      if (g.owner === me) {
        return refusal(
          node,
          409,
          `owner of group ${g.id} cannot self-leave; transfer ownership to a successor first`,
        );
      }
      const admins = [...g.members.values()].filter((role) => role === "Admin").length;
      if (g.members.get(me) === "Admin" && admins === 1) {
        return refusal(node, 409, "cannot remove the last admin of the group");
      }
      g.members.delete(me);
      node.namespaces.delete(g.id);
      return data({ namespaceId: g.id, memberPublicKey: node.identity.publicKey });
    }),
  },
  {
    method: "GET",
    pattern: `${A}/namespaces/:namespace/groups`,
    // {data: [{groupId, name?}]} (admin/mod.rs, ListNamespaceGroupsApiResponse).
    handler: withGroup((_c, g) => data(subgroups(g).map(groupEntry))),
  },
  {
    method: "POST",
    pattern: `${A}/namespaces/:namespace/groups`,
    json: true,
    // core reads {groupName?, visibility?} (create_group_in_namespace.rs): `name` is not a key it knows.
    handler: withGroup(({ node, body }, g) => {
      const input = bodyObject(body) ?? {};
      const visibility = typeof input.visibility === "string"
        ? input.visibility.toLowerCase()
        : undefined;
      if (visibility !== undefined && visibility !== "open" && visibility !== "restricted") {
        return invalidField("visibility", "open or restricted");
      }
      const group = createGroup(node, {
        applicationId: g.targetApplicationId,
        name: typeof input.groupName === "string" ? input.groupName : undefined,
        parentId: g.id,
        visibility,
      });
      return data({ groupId: group.id });
    }),
  },
  {
    method: "POST",
    pattern: `${A}/groups`,
    json: true,
    validated: true,
    handler: createGroupRoute,
  },
  {
    method: "GET",
    pattern: `${A}/groups/:group`,
    // Members only: an unknown group, "no group identity" and a non-member are untyped bails, one bare 500 at
    // 051f0848 (core crates/context/src/handlers/get_group_info.rs); newer core types them 404 and 403.
    handler: ({ node, params }) => {
      const g = visibleGroup(node, params.group);
      if (!g) return refusal(node, 404, `group '${params.group}' not found`);
      if (!isMemberOf(node, g)) {
        return refusal(node, 403, `node is not a member of group '${debugGroup(g.id)}'`);
      }
      return data(groupJson(g));
    },
  },
  {
    method: "DELETE",
    pattern: `${A}/groups/:group`,
    json: true,
    validated: true,
    // Cascades: the group, every subgroup under it and their contexts (core crates/context/src/handlers/
    // delete_group.rs). The namespace root is refused, and so is a caller who is neither the group's owner
    // (here: its admin), a namespace admin nor a holder of CAN_DELETE_SUBGROUP: untyped, a bare 500 at 051f0848.
    handler: withGroup(({ node }, g) => {
      if (g.parentId === null) {
        return refusal(
          node,
          400,
          `cannot delete the namespace root '${g.id}': use delete_namespace instead`,
        );
      }
      const root = network.groups.get(g.namespaceId);
      const account = node.identity.accountId;
      const allowed = g.members.get(account) === "Admin" ||
        root?.members.get(account) === "Admin" ||
        ((root?.capabilities.get(account) ?? 0) & DELETE_SUBGROUP) !== 0;
      if (!allowed) {
        return refusal(node, 403, `deleting subgroup '${g.id}': not permitted (or be its owner)`);
      }
      for (const doomed of subtree(g)) {
        doomed.deleted = true;
        for (const c of [...network.contexts.values()].filter((c) => c.groupId === doomed.id)) {
          network.contexts.delete(c.id);
          for (const n of network.nodes) n.contexts.delete(c.id);
        }
      }
      return data({ isDeleted: true });
    }),
  },
  {
    method: "POST",
    pattern: `${A}/groups/:group/upgrade`,
    json: true,
    validated: true,
    // {targetApplicationId, cascade?, forceCodeOnly?} → {data: {groupId, status, localContexts…}}: every context of
    // the group (and, with cascade, of its subgroups on the same app) moves to the target; an unknown target or a
    // caller who is no admin is refused, untyped (core crates/context/src/handlers/upgrade_group.rs,
    // server admin/handlers/groups/upgrade_group.rs). Core checks the apps' state schemas for a migration; the
    // simulated apps have none, so every swap succeeds and the upgrade completes at once.
    handler: withGroup(({ node, body }, g) => {
      const input = bodyObject(body);
      if (!input) return notAnObject();
      if (typeof input.targetApplicationId !== "string") return missingField("targetApplicationId");
      const target = node.apps.get(input.targetApplicationId);
      if (!target) return refusal(node, 404, "target application not found");
      if (g.members.get(node.identity.accountId) !== "Admin") {
        return refusal(node, 403, `not an admin of group '${g.id}'`);
      }
      const from = node.apps.get(g.targetApplicationId);
      const groups = input.cascade === true
        ? subtree(g).filter((s) => s.targetApplicationId === g.targetApplicationId)
        : [g];
      for (const group of groups) {
        group.targetApplicationId = target.id;
        for (const c of [...network.contexts.values()].filter((c) => c.groupId === group.id)) {
          moveContextApp(c, target);
        }
        group.upgrade = {
          fromVersion: from?.version ?? "",
          toVersion: target.version ?? "",
          initiatedAt: Math.floor(Date.now() / 1000),
          initiatedBy: node.identity.publicKey,
          status: "completed",
          localContextsTotal: null,
          localContextsSwapped: null,
          localContextsFailed: null,
          completedAt: Math.floor(Date.now() / 1000),
        };
      }
      return data({ groupId: g.id, status: "completed" });
    }),
  },
  {
    method: "GET",
    pattern: `${A}/groups/:group/upgrade/status`,
    // {data: null} without an upgrade, else its record (core get_group_upgrade_status.rs).
    handler: withGroup((_c, g) => data(g.upgrade)),
  },
  {
    method: "POST",
    pattern: `${A}/groups/:group/upgrade/retry`,
    json: true,
    validated: true,
    // Retries the failed swaps of the group's upgrade, answered as an upgrade is; none under way is refused,
    // untyped (core retry_group_upgrade.rs).
    handler: withGroup(({ node }, g) =>
      g.upgrade === null
        ? refusal(node, 409, `group '${g.id}' has no upgrade to retry`)
        : data({ groupId: g.id, status: g.upgrade.status })
    ),
  },
  {
    method: "GET",
    pattern: `${A}/groups/:group/migration-status`,
    // A flat body: the target state version, the pinned cohort and a rollup (core get_migration_status.rs).
    // Members' heartbeats are not simulated: the apps here carry no state schema, so there is nothing to migrate
    // and every member reads "migrated" once the namespace's upgrade completed, "unknown" before.
    handler: withGroup((_c, g) => {
      const done = g.upgrade?.status === "completed";
      const members = [...g.members.keys()].map((account) => ({
        peer: [...network.keyAccounts].find(([, a]) => a === account)?.[0] ?? account,
        account,
        state: done ? "migrated" : "unknown",
      }));
      return json({
        targetVersion: 0,
        expectedMembers: members.length,
        rollup: {
          migrated: done ? members.length : 0,
          inProgress: 0,
          unknown: done ? 0 : members.length,
          failed: 0,
          total: members.length,
          allMigrated: done,
          membersPendingSignature: 0,
        },
        members,
      });
    }),
  },
  {
    method: "POST",
    pattern: `${A}/groups/:group/sync`,
    json: true,
    validated: true,
    // {data: {groupId, appKey, targetApplicationId, memberCount, contextCount}} (core admin/handlers/groups/
    // sync_group.rs); the simulated network holds every group's state already, so there is nothing to fetch.
    handler: withGroup((_c, g) =>
      data({
        groupId: g.id,
        appKey: g.appKey,
        targetApplicationId: g.targetApplicationId,
        memberCount: g.members.size,
        contextCount: [...network.contexts.values()].filter((c) => c.groupId === g.id).length,
      })
    ),
  },
  {
    method: "POST",
    pattern: `${A}/groups/:group/leave`,
    // {data: {groupId, memberPublicKey}}; a namespace root (use leave_namespace) and a node that is no direct
    // member are refused, untyped: a bare 500 at 051f0848 (core crates/context/src/handlers/leave_group.rs).
    handler: withGroup(({ node }, g) => {
      if (g.parentId === null) {
        return refusal(node, 400, `${g.id} is a namespace (root group); use leave_namespace`);
      }
      if (!g.members.has(node.identity.accountId)) {
        return refusal(node, 403, `this node is not a direct member of ${g.id}`);
      }
      g.members.delete(node.identity.accountId);
      return data({ groupId: g.id, memberPublicKey: node.identity.publicKey });
    }),
  },
  {
    method: "POST",
    pattern: `${A}/groups/:group/contexts/:context/remove`,
    json: true,
    validated: true,
    // `{}` on success (DetachContextFromGroupApiResponse); a context of another group is refused, untyped
    // (core crates/context/src/handlers/detach_context_from_group.rs), and so is a caller who is no admin.
    handler: withGroup(({ node, params }, g) => {
      const context = network.contexts.get(params.context);
      if (!context || context.groupId !== g.id) {
        return refusal(node, 404, `context '${params.context}' does not belong to group '${g.id}'`);
      }
      if (g.members.get(node.identity.accountId) !== "Admin") {
        return refusal(node, 403, `not an admin of group '${g.id}'`);
      }
      context.groupId = "";
      return json({});
    }),
  },
  {
    method: "GET",
    pattern: `${A}/groups/:group/members`,
    // Paged: offset, limit default 100, at most 1000 (list_group_members.rs, groups.rs).
    // Only a member may list them: otherwise core's typed NotAGroupMember, a 403 with its message
    // (crates/context/src/handlers/list_group_members.rs; server admin/service.rs).
    handler: withGroup(({ url, node }, g) => {
      if (!isMemberOf(node, g)) {
        return jsonError(403, `node is not a member of group '${g.id}'`);
      }
      const offset = Number(url.searchParams.get("offset") ?? 0) || 0;
      const limit = Math.min(Number(url.searchParams.get("limit") ?? 100) || 100, 1000);
      const members = [...g.members].map(([identity, role]) => ({ identity, role }));
      return json({ members: members.slice(offset, offset + limit) });
    }),
  },
  {
    method: "POST",
    pattern: `${A}/groups/:group/members`,
    json: true,
    validated: true,
    handler: addMembers,
  },
  {
    // {members: [account hex]} (RemoveGroupMembersApiRequest; empty → the validation 400); a flat {} on success.
    // Admin only; removing every admin is refused (core remove_group_members.rs: a bare 500 at 051f0848,
    // `MembershipError::LastAdmin` 409 on newer core); an account that is no member is not refused: the removal is
    // recorded and deny-lists it (crates/governance-store/src/ops/group/member_removed.rs).
    method: "POST",
    pattern: `${A}/groups/:group/members/remove`,
    json: true,
    validated: true,
    handler: withGroup(({ node, body }, g) => {
      const members = bodyObject(body)?.members;
      if (!Array.isArray(members)) return missingField("members");
      if (members.length === 0) return jsonError(400, "Field 'members' is required but was empty");
      if (!members.every((m) => typeof m === "string" && /^[0-9a-f]{64}$/i.test(m))) {
        return invalidField("members", "64-hex accounts");
      }
      const refused = notAdmin(node, g);
      if (refused) return refused;
      const accounts = new Set(members.map((m) => (m as string).toLowerCase()));
      const admins = [...g.members].filter(([, role]) => role === "Admin").map(([a]) => a);
      if (admins.every((a) => accounts.has(a))) {
        return refusal(node, 409, "cannot remove the last admin of the group");
      }
      for (const account of accounts) {
        g.members.delete(account);
        g.capabilities.delete(account);
        g.removed.add(account);
      }
      return json({});
    }),
  },
  {
    // {role} (UpdateMemberRoleApiRequest: ReadOnlyTee refused by validation); a flat {} (update_member_role.rs).
    method: "PUT",
    pattern: `${A}/groups/:group/members/:account/role`,
    json: true,
    validated: true,
    handler: withGroup(({ node, body, params }, g) => {
      const role = bodyObject(body)?.role;
      if (role === undefined) return missingField("role");
      if (!ROLES.includes(role as string)) return invalidField("role", ROLES.join(", "));
      if (role === "ReadOnlyTee") {
        return jsonError(
          400,
          "Field 'role' has invalid format: ReadOnlyTee role can only be assigned via TEE attestation",
        );
      }
      // Admin first, then the target's row, then the last admin kept (core update_member_role.rs): each a
      // bare 500 at 051f0848; newer core types NotAdmin 403 and LastAdminDemotion 409.
      const refused = notAdmin(node, g);
      if (refused) return refused;
      const account = params.account.toLowerCase();
      const current = g.members.get(account);
      if (current === undefined) {
        return refusal(node, 404, `member ${account} not found in group ${g.id}`);
      }
      const admins = [...g.members.values()].filter((r) => r === "Admin").length;
      if (current === "Admin" && role !== "Admin" && admins <= 1) {
        return refusal(node, 409, "cannot demote the last admin of the group");
      }
      g.members.set(account, role as string);
      return json({});
    }),
  },
  {
    // {data: {capabilities}} (get_member_capabilities.rs; GetMemberCapabilitiesApiResponse).
    method: "GET",
    pattern: `${A}/groups/:group/members/:account/capabilities`,
    // A member's only: for any other account core bails untyped "identity is not a member of group" (core
    // get_member_capabilities.rs), a bare 500 on both generations (no typed arm reaches it).
    handler: withGroup(({ params }, g) => {
      const account = params.account.toLowerCase();
      return g.members.has(account)
        ? data({ capabilities: g.capabilities.get(account) ?? 0 })
        : jsonError(500, "Internal server error");
    }),
  },
  {
    // {capabilities: u32}; a flat {} (set_member_capabilities.rs; SetMemberCapabilitiesApiRequest).
    method: "PUT",
    pattern: `${A}/groups/:group/members/:account/capabilities`,
    json: true,
    validated: true,
    handler: withGroup(({ node, body, params }, g) => {
      const caps = bodyObject(body)?.capabilities;
      if (caps === undefined) return missingField("capabilities");
      if (typeof caps !== "number" || !Number.isInteger(caps) || caps < 0 || caps > 0xffffffff) {
        return invalidField("capabilities", "a u32");
      }
      const refused = notAdmin(node, g);
      if (refused) return refused;
      const account = params.account.toLowerCase();
      if (!g.members.has(account)) {
        return refusal(node, 404, `member ${account} not found in group ${g.id}`);
      }
      // Masked to the bits this core knows (`from_bits_truncate`, set_member_capabilities.rs): 0-8 at
      // 051f0848, bit 9 (CAN_AUTHOR_ON_BEHALF) too on newer core.
      g.capabilities.set(account, caps & (node.core === "newer" ? 0x3ff : 0x1ff));
      return json({});
    }),
  },
  {
    // {data: [{contextId, name?}]}, paged by offset/limit (list_group_contexts.rs; ListGroupContextsApiResponse).
    method: "GET",
    pattern: `${A}/groups/:group/contexts`,
    // Members only: a typed 403 already at 051f0848 (core crates/context/src/handlers/list_group_contexts.rs;
    // `NotAGroupMember`, seen on a real merod: "node is not a member of group '<hex>'").
    handler: withGroup(({ url, node }, g) => {
      if (!isMemberOf(node, g)) return jsonError(403, `node is not a member of group '${g.id}'`);
      const offset = Number(url.searchParams.get("offset") ?? 0) || 0;
      const limit = Number(url.searchParams.get("limit") ?? 100) || 100;
      const all = [...network.contexts.values()].filter((c) => c.groupId === g.id)
        .map((c) => ({ contextId: c.id, ...(c.name !== null ? { name: c.name } : {}) }));
      return data(all.slice(offset, offset + limit));
    }),
  },
  {
    method: "GET",
    pattern: `${A}/groups/:group/subgroups`,
    // A flat {subgroups: [{groupId, name?}]} body (admin/mod.rs, ListSubgroupsApiResponse).
    handler: withGroup((_c, g) => json({ subgroups: subgroups(g).map(groupEntry) })),
  },
  {
    method: "PUT",
    pattern: `${A}/groups/:group/settings/subgroup-visibility`,
    json: true,
    validated: true,
    handler: setVisibility,
  },
  {
    method: "GET",
    pattern: `${A}/groups/:group/metadata`,
    handler: withGroup((_c, g) => data(g.metadata)),
  },
  {
    method: "PUT",
    pattern: `${A}/groups/:group/metadata`,
    json: true,
    validated: true,
    handler: setMetadata,
  },
  ...(["contexts", "members"] as const).flatMap((kind): Route[] => {
    const target = (g: NonNullable<ReturnType<typeof visibleGroup>>, key: string) =>
      kind === "contexts" ? network.contexts.get(key)?.groupId === g.id : g.members.has(key);
    const key = (params: Record<string, string>) =>
      kind === "contexts" ? params.context : params.account.toLowerCase();
    const records = (g: NonNullable<ReturnType<typeof visibleGroup>>) =>
      kind === "contexts" ? g.contextMetadata : g.memberMetadata;
    const pattern = `${A}/groups/:group/${kind}/:${
      kind === "contexts" ? "context" : "account"
    }/metadata`;
    return [{
      method: "GET",
      pattern,
      // {data: record | null} (core admin/handlers/groups/set_{context,member}_metadata.rs get_handler).
      handler: withGroup(({ node, params }, g) =>
        target(g, key(params))
          ? data(records(g).get(key(params)) ?? null)
          : refusal(node, 404, `${kind === "contexts" ? "context" : "member"} not found in group`)
      ),
    }, {
      method: "PUT",
      pattern,
      json: true,
      validated: true,
      // {name?, data} → {}: `data` replaces what was there, an absent name keeps the current one (admin/mod.rs
      // SetMetadataApiRequest). A context outside the group, an account that is no member, or a caller who is
      // neither admin nor holds manage_metadata is refused, untyped (the group op's apply-time checks).
      handler: withGroup(({ node, params, body }, g) => {
        const input = bodyObject(body);
        if (!input) return notAnObject();
        const account = node.identity.accountId;
        const allowed = g.members.get(account) === "Admin" ||
          ((g.capabilities.get(account) ?? 0) & MANAGE_METADATA) !== 0;
        if (!target(g, key(params))) {
          return refusal(
            node,
            404,
            `${kind === "contexts" ? "context" : "member"} not found in group`,
          );
        }
        if (!allowed) return refusal(node, 403, "not permitted to manage metadata in this group");
        const before = records(g).get(key(params));
        records(g).set(key(params), {
          name: typeof input.name === "string" ? input.name : before?.name ?? null,
          data: (input.data ?? {}) as Record<string, string>,
        });
        if (kind === "contexts" && typeof input.name === "string") {
          network.contexts.get(key(params))!.name = input.name;
        }
        return json({});
      }),
    }];
  }),
  {
    method: "PUT",
    pattern: `${A}/groups/:group/settings/default-capabilities`,
    json: true,
    validated: true,
    // {defaultCapabilities: u32} → {} (core set_default_capabilities.rs; admin/mod.rs): admin only, untyped.
    handler: withGroup(({ node, body }, g) => {
      const input = bodyObject(body);
      if (!input) return notAnObject();
      if (typeof input.defaultCapabilities !== "number") return missingField("defaultCapabilities");
      if (g.members.get(node.identity.accountId) !== "Admin") {
        return refusal(node, 403, `not an admin of group '${g.id}'`);
      }
      g.defaultCapabilities = input.defaultCapabilities;
      return json({});
    }),
  },
  {
    method: "PUT",
    pattern: `${A}/groups/:group/members/:account/auto-follow`,
    json: true,
    validated: true,
    // {autoFollowContexts, autoFollowSubgroups} → {}; a target that is no member is refused, untyped (core
    // crates/context/src/handlers/set_member_auto_follow.rs).
    handler: withGroup(({ node, params, body }, g) => {
      const input = bodyObject(body);
      if (!input) return notAnObject();
      for (const field of ["autoFollowContexts", "autoFollowSubgroups"]) {
        if (typeof input[field] !== "boolean") return missingField(field);
      }
      const account = params.account.toLowerCase();
      if (!g.members.has(account)) {
        return refusal(node, 404, `target is not a member of group '${g.id}'`);
      }
      g.autoFollow.set(account, {
        contexts: input.autoFollowContexts as boolean,
        subgroups: input.autoFollowSubgroups as boolean,
      });
      return json({});
    }),
  },
  {
    method: "POST",
    pattern: `${A}/groups/:group/join-via-inheritance`,
    json: true,
    handler: withGroup(({ node }, g) => {
      const joined = joinViaInheritance(node, g);
      if (typeof joined === "string") return jsonError(403, joined);
      return data({
        groupId: g.id,
        memberPublicKey: node.identity.publicKey,
        wasInherited: joined.wasInherited,
      });
    }),
  },
];
