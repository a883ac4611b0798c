// This node in a group, as the tools that explain core's bare "Internal server error" ask it: who this node is, the
// group's members (null when the node may not list them: it is not a member), one account's row among them, this
// node's standing in a group it cannot read, and which contexts it holds an identity in.

import {
  type CallOptions,
  type GroupInfo,
  type GroupMember,
  NodeHttpError,
  unlessMissing,
} from "../mero/mod.ts";
import { isKeyScopeRefusal } from "../answer/errors.ts";
import { mapLimit } from "../lib/pool.ts";
import type { ToolDeps } from "./deps.ts";
import { collectPages } from "./list.ts";

type Admin = ToolDeps["node"]["admin"];

/** This node's account (core `GET /identity`), or null when it has none yet or cannot say. */
export async function ownAccount(admin: Admin, o: CallOptions): Promise<string | null> {
  const identity = await unlessMissing(admin.identity(o)).catch(() => null);
  return typeof identity?.accountId === "string" ? identity.accountId : null;
}

/** This node's identity in a context (the first it owns there), as core acts for it; null when it has none. */
export async function ownIdentity(
  admin: Admin,
  contextId: string,
  o: CallOptions,
): Promise<string | null> {
  return (await admin.getContextIdentities(contextId, { owned: true }, o)).identities[0] ?? null;
}

/** The group's members (the first LIST_LIMIT), or null when the node refuses to list them. */
export async function groupMembers(
  admin: Admin,
  group: string,
  o: CallOptions,
): Promise<GroupMember[] | null> {
  return await collectPages(
    async (page) => (await admin.listGroupMembers(group, page, o)).members,
    (m) => `${m.identity}`,
  ).then((c) => c.items, () => null);
}

/** The row of `account` among `members` (accounts are hex: compared in any case). */
export function memberRow(members: GroupMember[], account: string | null): GroupMember | undefined {
  if (account === null) return undefined;
  return members.find((m) => `${m.identity}`.toLowerCase() === account.toLowerCase());
}

/**
 * This node's role in a group and how many admins it has, as the node lists them; null when it cannot say (it will
 * not list the members, or this node has no account yet). `role` is null when this node is no direct member.
 */
export async function ownRole(
  admin: Admin,
  group: string,
  o: CallOptions,
): Promise<{ role: string | null; admins: number } | null> {
  const [account, members] = await Promise.all([
    ownAccount(admin, o),
    groupMembers(admin, group, o),
  ]);
  if (account === null || members === null) return null;
  return {
    role: memberRow(members, account)?.role ?? null,
    admins: members.filter((m) => m.role === "Admin").length,
  };
}

/** How many of these questions are asked of the node at once. */
const JOINED_CONCURRENCY = 8;

/** The most namespaces `groupStanding` looks through for a group it cannot read. */
const STANDING_NAMESPACES = 20;

/** Whether this node may read a group, and when not, whether it is a member that cannot or a stranger to it. */
export type GroupStanding =
  | { standing: "member"; group: GroupInfo }
  | { standing: "not a member"; namespace: string | null }
  | { standing: "unknown" };

/**
 * This node's standing in a group, as the node will say it. `GET /groups/:id` answers members only: at core
 * 051f0848 an unknown group, a group this node is not a member of and "no group identity" are one bare 500
 * (crates/context/src/handlers/get_group_info.rs); newer core types them 404 and 403. For a bare 500 the
 * group is looked for among the subgroups of the namespaces this node holds (`GET /namespaces/:id/groups` lists a
 * namespace's children to anyone holding it): found there, the node is not a member; found nowhere, the group is
 * unknown here. A refusal of the token itself (`X-Auth-Error`) is thrown, not read as standing.
 */
export async function groupStanding(
  admin: Admin,
  group: string,
  o: CallOptions,
): Promise<GroupStanding> {
  try {
    return { standing: "member", group: await admin.getGroup(group, o) };
  } catch (error) {
    if (!(error instanceof NodeHttpError) || error.authError !== null) throw error;
    if (isKeyScopeRefusal(error)) throw error;
    if (error.status === 403) return { standing: "not a member", namespace: null };
    if (error.status === 404) return { standing: "unknown" };
    if (error.status !== 500) throw error;
  }
  const wanted = group.toLowerCase();
  const namespaces = await admin.listNamespaces({ limit: STANDING_NAMESPACES }, o).catch(() => []);
  for (const ns of namespaces.slice(0, STANDING_NAMESPACES)) {
    if (ns.namespaceId.toLowerCase() === wanted) {
      return { standing: "not a member", namespace: ns.namespaceId };
    }
  }
  const children = await mapLimit(
    namespaces.slice(0, STANDING_NAMESPACES),
    JOINED_CONCURRENCY,
    async (ns) => ({
      ns: ns.namespaceId,
      groups: await admin.listNamespaceGroups(ns.namespaceId, o).catch(() => []),
    }),
  );
  const holder = children.find((c) => c.groups.some((g) => g.groupId.toLowerCase() === wanted));
  return holder ? { standing: "not a member", namespace: holder.ns } : { standing: "unknown" };
}

/** What to tell a person whose node cannot read `group`: unknown here, or known but not joined. */
export function standingProblem(standing: GroupStanding, group: string): string | null {
  if (standing.standing === "unknown") {
    return `group ${group} is not known to this node: check the id (list_namespaces, describe_group), or join its namespace first (join_namespace)`;
  }
  if (standing.standing === "not a member") {
    const where =
      standing.namespace !== null && standing.namespace.toLowerCase() !== group.toLowerCase()
        ? ` (a subgroup of namespace ${standing.namespace}, which this node holds)`
        : "";
    return `this node is not a member of group ${group}${where}: join it first (join_open_group for an open subgroup, or ask an admin to add this node's account: add_group_members)`;
  }
  return null;
}

/**
 * Which of `contextIds` this node holds an identity of its own in: false for a context it left (core keeps a left
 * context listed with its state and drops only this node's identities: crates/context/src/handlers/
 * leave_context.rs; get_context_ids.rs lists every context meta) or never joined. A context the node will
 * not answer for is left out of the map, so nothing is claimed about it.
 */
export async function joinedHere(
  admin: Admin,
  contextIds: readonly string[],
  o: CallOptions,
): Promise<Map<string, boolean>> {
  const answers = await mapLimit(contextIds, JOINED_CONCURRENCY, async (id) => {
    const owned = await admin.getContextIdentities(id, { owned: true }, o).catch(() => null);
    return [id, owned === null ? null : owned.identities.length > 0] as const;
  });
  return new Map(answers.filter((a): a is [string, boolean] => a[1] !== null));
}

/** What a context this node holds no identity in means for the agent, said where contexts are listed. */
export const NOT_JOINED_NOTE =
  "This node holds no identity here (it left the context, or never joined): the context stays listed with the state it had, but calls fail and it no longer syncs. join_context takes part again.";
