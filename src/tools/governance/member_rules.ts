// The rules of a group's membership the governance tools share: the roles, what an admin may do, a member account
// as an argument, and the words for a member change the node refused.

import { z } from "zod";
import { type CallOptions, NodeHttpError } from "../../mero/mod.ts";
import { groupMembers, memberRow, ownAccount } from "../membership.ts";
import type { ToolDeps } from "../deps.ts";

/** The roles a node grants through the admin API; `ReadOnlyTee` only comes from TEE attestation (core admin/mod.rs). */
export const ROLES = ["Admin", "Member", "ReadOnly"] as const;

/** What an admin of a group may do, as the question before making one says it. */
export const ADMIN_POWER =
  "An admin may add and remove members, change roles and capabilities, upgrade the group's app and delete the group (which removes it from every member's node); only another admin can take the role back.";

/** A member account as core keys members: 64 hex (join_namespace's `memberAccount`). */
export const ACCOUNT = /^[0-9a-fA-F]{64}$/;

/** A member account as an argument. */
export const accountParam = z.string().regex(ACCOUNT, "a member account is 64 hex characters")
  .describe(
    "Member account (64 hex).",
  );

/** A member change as `memberChangeProblem` explains it: which accounts, and for a role change the new role. */
type MemberChange =
  | { kind: "remove"; accounts: string[] }
  | { kind: "add"; accounts: string[] }
  | { kind: "role"; account: string; role: string }
  | { kind: "capabilities"; account: string };

/**
 * Why a member change failed. Core lets only a group's Admin change members (`governance_preflight` with
 * `require_admin`: crates/context/src/lib.rs, add_group_members.rs, remove_group_members.rs,
 * update_member_role.rs, set_member_capabilities.rs; the manage_members capability does not suffice), keeps one admin (remove:
 * remove_group_members.rs; demote: update_member_role.rs) and reads a role or capabilities of members
 * only (get_member_capabilities.rs). At 051f0848 each refusal is a bare 500, so the likely cause is asked of
 * the node: this node's role there, the accounts' rows, the admins left. Newer core types them (403 NotAdmin,
 * 409 LastAdmin…) with its own message, which is shown as it is.
 */
export async function memberChangeProblem(
  deps: ToolDeps,
  error: unknown,
  group: string,
  change: MemberChange,
  o: CallOptions,
): Promise<unknown> {
  if (!(error instanceof NodeHttpError) || error.status !== 500) return error;
  const admin = deps.node.admin;
  const refused = 'The node refused the change ("Internal server error")';
  const [account, members] = await Promise.all([
    ownAccount(admin, o),
    groupMembers(admin, group, o),
  ]);
  if (members === null) {
    return new Error(
      `${refused}, and it cannot list the members of group ${group} either: this node is probably not a member of the group.`,
    );
  }
  const mine = memberRow(members, account);
  if (account !== null && mine?.role !== "Admin") {
    return new Error(
      `${refused}: this node is ${
        mine ? mine.role : "not a direct member"
      } in group ${group}, and only an Admin of the group may change its members (the manage_members capability does not suffice). An admin can make the change, or make this node Admin (set_member_role).`,
    );
  }
  const targets = change.kind === "remove" || change.kind === "add"
    ? change.accounts
    : [change.account];
  const missing = targets.filter((a) => memberRow(members, a) === undefined);
  if ((change.kind === "role" || change.kind === "capabilities") && missing.length > 0) {
    return new Error(
      `${refused}: ${
        missing.join(", ")
      } is not a member of group ${group} (list_group_members shows who is).`,
    );
  }
  const admins = members.filter((m) => m.role === "Admin");
  const leaving = new Set(
    change.kind === "remove"
      ? targets.map((a) => a.toLowerCase())
      : change.kind === "role" && change.role !== "Admin"
      ? [change.account.toLowerCase()]
      : [],
  );
  const adminsLeft = admins.filter((m) => !leaving.has(`${m.identity}`.toLowerCase()));
  if (admins.length > 0 && adminsLeft.length === 0) {
    return new Error(
      `${refused}: it would leave group ${group} without an admin, and one must remain. Make another member Admin first (set_member_role).`,
    );
  }
  return new Error(
    `${refused} for group ${group}; its log says why.`,
  );
}
