// A group's members: list, add and remove them. Adding an admin is asked about; a refusal says which rule of
// core's it met.

import { z } from "zod";
import {
  callOptions,
  confirmed,
  defineTool,
  DESTRUCTIVE,
  READ_ONLY,
  type Tool,
  type ToolCall,
  WRITE,
} from "../tool.ts";
import { isKeyScopeRefusal } from "../../answer/errors.ts";
import { jsonResult, textResult, type ToolResult } from "../../answer/result.ts";
import { collectPages, listOutput, listPage, pageInput } from "../list.ts";
import { NodeHttpError } from "../../mero/mod.ts";
import { groupMembers, memberRow } from "../membership.ts";
import type { ToolDeps } from "../deps.ts";
import { groupParam, nonEmpty } from "../params.ts";
import { ACCOUNT, accountParam, ADMIN_POWER, memberChangeProblem, ROLES } from "./member_rules.ts";

/** `list_group_members` lists a group's members and roles. */
export function listGroupMembers(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "list_group_members",
    title: "List group members",
    description: "Lists a group's members and roles.",
    group: "governance",
    input: z.object({ group: groupParam, ...pageInput }),
    output: listOutput("members"),
    annotations: READ_ONLY,
    large: true,
    run: async (args, call) => {
      const o = callOptions(call);
      const { items, truncated } = await collectPages(
        async (page) => (await admin.listGroupMembers(args.group, page, o)).members,
        (member) => `${member.identity}`,
        args.offset,
        args.limit,
      ).catch((error) => {
        // Only a member may list them: core's typed NotAGroupMember, a 403 (crates/context/src/handlers/
        // list_group_members.rs).
        if (
          error instanceof NodeHttpError && error.status === 403 && !error.authError &&
          !isKeyScopeRefusal(error)
        ) {
          throw new Error(
            `This node is not a member of group ${args.group}, and only members may list its members (the node answered 403). Join it first: join_open_group for an open subgroup of a namespace this node is in, else ask a member to add this node's account (node_status shows it).`,
          );
        }
        throw error;
      });
      return jsonResult(listPage("members", items, args, deps.config, truncated));
    },
  });
}

/** `add_group_members` adds group members with roles (identity: their memberAccount, 64 hex). */
export function addGroupMembers(deps: ToolDeps): Tool {
  return defineTool({
    name: "add_group_members",
    title: "Add group members",
    description: "Adds group members with roles (identity: their memberAccount, 64 hex).",
    group: "governance",
    input: z.object({
      group: groupParam,
      members: z.array(z.strictObject({
        identity: nonEmpty(
          "Member account, 64 hex (a signing key works only if the node knows it).",
        ),
        role: z.enum(ROLES),
      })).min(1).describe("Members to add."),
    }),
    asks: "when it adds an admin",
    annotations: WRITE,
    run: async ({ group, members }, call) => {
      // Making someone an admin hands over the group (its members, its contexts, deleting it): the person decides.
      const admins = members.filter((m) => m.role === "Admin").map((m) => m.identity);
      if (admins.length === 0) return await addMembers(deps, group, members, call);
      return await confirmed(
        call,
        `Make ${admins.join(", ")} ${
          admins.length === 1 ? "an admin" : "admins"
        } of group ${group}? ${ADMIN_POWER}`,
        { group, members },
        () => addMembers(deps, group, members, call),
      );
    },
  });
}

/** `remove_group_members` removes members from a group (needs Admin there). */
export function removeGroupMembers(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "remove_group_members",
    title: "Remove group members",
    description: "Removes members from a group (needs Admin there).",
    group: "governance",
    input: z.object({
      group: groupParam,
      members: z.array(accountParam).min(1).max(100).describe("Member accounts."),
      denyNonMembers: z.boolean().optional().describe(
        "Also deny-list listed accounts that are not members.",
      ),
    }),
    annotations: DESTRUCTIVE,
    run: async ({ group, members, denyNonMembers }, call) => {
      const o = callOptions(call);
      // Core does not refuse an account that is no member: it records the removal, which deny-lists the account
      // (crates/governance-store/src/ops/group/member_removed.rs), so a mistyped account would be barred
      // from the group silently. Such accounts are refused unless the caller says to deny-list them.
      const listed = await groupMembers(admin, group, o);
      const strangers = listed === null
        ? []
        : members.filter((m) => memberRow(listed, m) === undefined);
      if (strangers.length > 0 && denyNonMembers !== true) {
        throw new Error(
          `${strangers.join(", ")} ${
            strangers.length === 1 ? "is" : "are"
          } not a member of group ${group} (list_group_members shows who is). The node would still record the removal and deny-list ${
            strangers.length === 1 ? "that account" : "those accounts"
          }, barring a later join by invitation; check the accounts, or pass denyNonMembers: true to deny-list them.`,
        );
      }
      const barred = strangers.length > 0
        ? ` ${strangers.join(", ")} ${
          strangers.length === 1 ? "is" : "are"
        } not a member: the node deny-lists ${strangers.length === 1 ? "it" : "them"}.`
        : "";
      return await confirmed(
        call,
        `Remove ${members.length} member${members.length === 1 ? "" : "s"} (${
          members.join(", ")
        }) from group ${group}? They lose its contexts; coming back needs an admin to add them again.${barred}`,
        { group, members },
        async () => {
          try {
            await admin.removeGroupMembers(group, members, o);
          } catch (error) {
            throw await memberChangeProblem(deps, error, group, {
              kind: "remove",
              accounts: members,
            }, o);
          }
          return textResult(`Removed from group ${group}: ${members.join(", ")}.${barred}`);
        },
      );
    },
  });
}

/** Adds members, with the node's refusal of an unresolvable signing key explained. */
async function addMembers(
  deps: ToolDeps,
  group: string,
  members: { identity: string; role: typeof ROLES[number] }[],
  ctx: ToolCall,
): Promise<ToolResult> {
  try {
    await deps.node.admin.addGroupMembers(group, members, callOptions(ctx));
  } catch (error) {
    // A bare 500 has two likely causes at 051f0848: this node may not change the group's members (asked of the
    // node: memberChangeProblem), or a signing key did not resolve to a member account (core resolves a key at the
    // namespace: crates/context/src/handlers/add_group_members.rs → member_account.rs).
    const explained = await memberChangeProblem(deps, error, group, {
      kind: "add",
      accounts: members.map((m) => m.identity),
    }, callOptions(ctx));
    const keys = members.filter((m) => !ACCOUNT.test(m.identity)).map((m) => m.identity);
    if (
      keys.length > 0 && error instanceof NodeHttpError && error.status === 500 &&
      /its log says why/.test(String((explained as Error).message))
    ) {
      throw new Error(
        `The node could not add ${
          keys.join(", ")
        }: a signing key must resolve to a member account, and ` +
          "this one did not. Pass the member's account instead (64 hex: the memberAccount their " +
          "join_namespace returned).",
      );
    }
    throw explained;
  }
  const who = members.map((m) => `${m.identity} as ${m.role}`).join(", ");
  return textResult(`Added to group ${group}: ${who}.`);
}
