// This node in a group, as the tools that explain core's bare "Internal server error" ask it: who this node is, the
// group's members (null when the node may not list them: it is not a member), and one account's row among them.

import { type CallOptions, type GroupMember, unlessMissing } from "../mero/client.ts";
import type { ToolContext } from "./context.ts";
import { collectPages } from "./list.ts";

type Admin = ToolContext["node"]["admin"];

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
