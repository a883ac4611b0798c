// What a member may do in a group: its role and its capabilities. Every change of role is asked about (a demotion may
// leave no one to restore it, a promotion hands over power), and so is every capability granted.

import { z } from "zod";
import {
  callOptions,
  confirmed,
  defineTool,
  output,
  SET,
  type Tool,
  type ToolCall,
} from "../tool.ts";
import { jsonResult, textResult, type ToolResult } from "../../answer/result.ts";
import {
  CAPABILITIES,
  CAPABILITY_NAMES,
  capabilityNames,
  capabilityPower,
  withCapabilities,
} from "../capabilities.ts";
import { groupMembers, memberRow } from "../membership.ts";
import { oneLine } from "../../lib/text.ts";
import type { ToolDeps } from "../deps.ts";
import { groupParam } from "../params.ts";
import { accountParam, ADMIN_POWER, memberChangeProblem, ROLES } from "./member_rules.ts";

/** `set_member_role` sets a group member's role. */
export function setMemberRole(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "set_member_role",
    title: "Set member role",
    description: "Sets a group member's role.",
    group: "governance",
    keywords: ["admin", "promote", "demote"],
    input: z.object({
      group: groupParam,
      member: accountParam,
      role: z.enum(ROLES).describe("The new role."),
    }),
    // A demotion may not be undoable (the last admin demoted leaves no one to restore it), and a promotion hands
    // over power: every change is asked about.
    asks: "on every change of role",
    annotations: { ...SET, destructiveHint: true },
    run: async ({ group, member, role }, call) => {
      const o = callOptions(call);
      const act = async () => {
        try {
          await admin.setMemberRole(group, member, role, o);
        } catch (error) {
          throw await memberChangeProblem(deps, error, group, {
            kind: "role",
            account: member,
            role,
          }, o);
        }
        return textResult(`${member} is now ${role} in group ${group}.`);
      };
      const members = await groupMembers(admin, group, o);
      const current = members === null ? undefined : memberRow(members, member)?.role;
      if (current === role) return await act();
      // Every change of role is the person's: a demotion may leave no one to restore it, a promotion hands over
      // power (planted text in a shared context would ask for exactly that). Unknown current role: asked too.
      const promotes = current !== undefined &&
        ROLES.indexOf(role) < ROLES.indexOf(current as typeof ROLES[number]);
      return await confirmed(
        call,
        `Set ${member} from ${current ?? "its current role"} to ${role} in group ${group}? ${
          role === "Admin"
            ? ADMIN_POWER
            : promotes
            ? "It gains rights it did not have."
            : current === "Admin" || current === undefined
            ? "An admin demoted may have no one left to restore the role."
            : "It loses rights it had."
        }`,
        { group, member, role, current: current ?? null },
        act,
      );
    },
  });
}

/**
 * `set_member_capabilities` grants or revokes a group member's capabilities; with neither, shows them.
 */
export function setMemberCapabilities(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "set_member_capabilities",
    title: "Set member capabilities",
    description: "Grants or revokes a group member's capabilities; with neither, shows them.",
    group: "governance",
    input: z.object({
      group: groupParam,
      member: accountParam,
      grant: z.array(z.string()).max(16).optional().describe(
        `Names to add: ${CAPABILITY_NAMES.join(", ")}.`,
      ),
      revoke: z.array(z.string()).max(16).optional().describe("Names to remove."),
    }),
    output: output({ member: "string", capabilities: "array" }, ["capabilities"]),
    asks: "when it grants any",
    annotations: SET,
    run: async ({ group, member, grant, revoke }, call) => {
      const unknown = [...grant ?? [], ...revoke ?? []].filter((n) => !(n in CAPABILITIES));
      if (unknown.length > 0) {
        throw new Error(
          `Unknown capabilit${unknown.length === 1 ? "y" : "ies"} ${
            unknown.map((n) => `"${oneLine(n, 40)}"`).join(", ")
          }: the names are ${CAPABILITY_NAMES.join(", ")}.`,
        );
      }
      const o = callOptions(call);
      const change = { kind: "capabilities", account: member } as const;
      const explained = async (error: unknown) => {
        throw await memberChangeProblem(deps, error, group, change, o);
      };
      const before = await admin.getMemberCapabilities(group, member, o).catch(explained);
      const wanted = withCapabilities(before, grant ?? [], revoke ?? []);
      if (wanted === before) {
        return jsonResult({
          group,
          member,
          capabilities: capabilityNames(before),
          changed: false,
        });
      }
      const gained = capabilityNames(wanted & ~before);
      if (gained.length === 0) {
        return await setCapabilities(deps, group, member, before, wanted, call);
      }
      return await confirmed(
        call,
        `Grant ${member} ${gained.join(", ")} in group ${group}? ${capabilityPower(gained)}`,
        { group, member, capabilities: wanted, before },
        () => setCapabilities(deps, group, member, before, wanted, call),
      );
    },
  });
}

/** Sets a member's capabilities and reads back what the node kept. */
async function setCapabilities(
  deps: ToolDeps,
  group: string,
  member: string,
  before: number,
  wanted: number,
  ctx: ToolCall,
): Promise<ToolResult> {
  const admin = deps.node.admin;
  const o = callOptions(ctx);
  await admin.setMemberCapabilities(group, member, wanted, o).catch(async (error) => {
    throw await memberChangeProblem(deps, error, group, {
      kind: "capabilities",
      account: member,
    }, o);
  });
  // Read back: core keeps only the bits it knows (`from_bits_truncate`: set_member_capabilities.rs),
  // so a name an older node lacks (author_on_behalf before newer core) is dropped without a word.
  const held = await admin.getMemberCapabilities(group, member, o).catch(() => wanted);
  const dropped = capabilityNames(wanted & ~held);
  return jsonResult({
    group,
    member,
    capabilities: capabilityNames(held),
    changed: held !== before,
    ...(dropped.length > 0
      ? {
        note: `The node did not keep ${dropped.join(", ")}: its core does not know ${
          dropped.length === 1 ? "that capability" : "those capabilities"
        }.`,
      }
      : {}),
  });
}
