// Namespace and group operations. A namespace is a root group bound to one application; a node
// "holds" a group when it is a member of the group's namespace. Groups live in the shared network.

import { hexId, isBase58Id, isHexId } from "./ids.ts";
import { type Group, network } from "./network.ts";
import { nextSeed, type NodeState } from "./state.ts";

/** Roles a group member may have (`ReadOnlyTee` deserialises, but only TEE attestation may grant it). */
export const ROLES = ["Admin", "Member", "ReadOnly", "ReadOnlyTee"];

/** The group `id` if this node holds it (not deleted, its namespace joined). */
export function visibleGroup(state: NodeState, id: string): Group | undefined {
  const group = network.groups.get(id.toLowerCase());
  return group && !group.deleted && state.namespaces.has(group.namespaceId) ? group : undefined;
}

/**
 * A member of the group: an explicit row, or (for an open subgroup) a member of its parent — core's membership
 * path, which auto-follow and join_context go by (crates/context/src/auto_follow.rs
 * `should_auto_follow_contexts`; join_context.rs `check_path`).
 */
export function isMemberOf(state: NodeState, g: Group): boolean {
  if (g.members.has(state.identity.accountId)) return true;
  const parent = g.parentId ? network.groups.get(g.parentId) : undefined;
  return g.visibility === "open" && parent !== undefined && isMemberOf(state, parent);
}

/** Creates a namespace (no parent) or a subgroup; this node's account becomes its admin. */
export function createGroup(
  state: NodeState,
  input: {
    applicationId: string;
    name?: string | null;
    parentId?: string | null;
    /** At birth (POST /namespaces/:id/groups takes it: create_group_in_namespace.rs); default restricted. */
    visibility?: "open" | "restricted";
  },
): Group {
  const id = hexId(nextSeed(state, "group"));
  const parent = input.parentId ? network.groups.get(input.parentId) : undefined;
  const group: Group = {
    id,
    name: input.name ?? null,
    parentId: parent?.id ?? null,
    namespaceId: parent?.namespaceId ?? id,
    targetApplicationId: input.applicationId,
    visibility: input.visibility ?? "restricted",
    metadata: { name: input.name ?? null, data: null },
    members: new Map([[state.identity.accountId, "Admin"]]),
    owner: state.identity.accountId,
    capabilities: new Map(),
    removed: new Set(),
    appKey: hexId(`app-key:${id}`),
    createdAt: Math.floor(Date.now() / 1000),
    upgrade: null,
    contextMetadata: new Map(),
    memberMetadata: new Map(),
    // A namespace starts with CAN_JOIN_OPEN_SUBGROUPS as its members' default (core crates/governance-store/src/ops/
    // namespace/namespace_created.rs, :482-484); a subgroup with none.
    defaultCapabilities: parent === undefined ? 1 << 2 : 0,
    autoFollow: new Map(),
    deleted: false,
  };
  network.groups.set(id, group);
  network.keyAccounts.set(state.identity.publicKey, state.identity.accountId);
  if (!parent) state.namespaces.add(id);
  return group;
}

function contextCount(groupId: string): number {
  let n = 0;
  for (const core of network.contexts.values()) if (core.groupId === groupId) n++;
  return n;
}

/** The live subgroups of a group. */
export function subgroups(group: Group): Group[] {
  return [...network.groups.values()].filter((g) => g.parentId === group.id && !g.deleted);
}

/** A namespace as `GET /namespaces` lists it. */
export function namespaceJson(group: Group): Record<string, unknown> {
  return {
    namespaceId: group.id,
    name: group.name,
    targetApplicationId: group.targetApplicationId,
    appKey: group.appKey,
    memberCount: group.members.size,
    contextCount: contextCount(group.id),
    subgroupCount: subgroups(group).length,
    createdAt: group.createdAt,
  };
}

/** A group as `GET /groups/:id` answers it. */
export function groupJson(group: Group): Record<string, unknown> {
  return {
    groupId: group.id,
    name: group.name,
    appKey: group.appKey,
    targetApplicationId: group.targetApplicationId,
    memberCount: group.members.size,
    contextCount: contextCount(group.id),
    subgroupVisibility: group.visibility,
    parentGroupId: group.parentId,
    namespaceId: group.namespaceId,
  };
}

/**
 * The account a member identity names: a 64-hex account is taken as given; a base58 key only when some node's
 * founding or join bound it to an account (core GroupMemberApiInput, member_account.rs). `undefined` for a
 * key bound to nothing; null for neither form.
 */
export function memberAccount(identity: unknown): string | null | undefined {
  if (typeof identity !== "string") return null;
  if (isHexId(identity)) return identity.toLowerCase();
  return isBase58Id(identity) ? network.keyAccounts.get(identity) : null;
}

/** Joins an open group through namespace membership; a 403 message when it is restricted. */
export function joinViaInheritance(
  state: NodeState,
  group: Group,
): { wasInherited: boolean } | string {
  if (group.members.has(state.identity.accountId)) return { wasInherited: false };
  if (group.visibility !== "open") {
    return `Group ${group.id} is restricted: an admin must add this node's identity as a member`;
  }
  group.members.set(state.identity.accountId, "Member");
  return { wasInherited: true };
}
