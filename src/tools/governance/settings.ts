// A group's settings: who may join, names and data, new members' capabilities, auto-follow.

import { contextArg } from "../context_arg.ts";
import { z } from "zod";
import { callOptions, confirmed, defineTool, SET, type Tool } from "../tool.ts";
import { explainBare500 } from "../../answer/errors.ts";
import { textResult } from "../../answer/result.ts";
import { type CallOptions, type GroupInfo, NodeHttpError } from "../../mero/mod.ts";
import { isObject } from "../../lib/json.ts";
import { CAPABILITY_NAMES, capabilityPower, withCapabilities } from "../capabilities.ts";
import { groupStanding, standingProblem } from "../membership.ts";
import type { ToolDeps } from "../deps.ts";
import { contextParam, groupParam, visibilityParam } from "../params.ts";
import { accountParam } from "./member_rules.ts";

/** `set_group_visibility` sets who may join a group. */
export function setGroupVisibility(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "set_group_visibility",
    title: "Set group visibility",
    description: "Sets who may join a group.",
    group: "governance",
    keywords: ["open", "restricted", "public", "private"],
    input: z.object({ group: groupParam, visibility: visibilityParam }),
    asks: "when it opens a group",
    annotations: SET,
    run: async ({ group, visibility }, call) => {
      const act = async () => {
        await admin.setSubgroupVisibility(group, visibility, callOptions(call));
        return textResult(`Group ${group} is now ${visibility}.`);
      };
      if (visibility !== "open") return await act();
      return await confirmed(
        call,
        `Open group ${group} to every member of its namespace? Any of them may then join it and read its contexts.`,
        { group, visibility },
        act,
      );
    },
  });
}

/**
 * `set_group_metadata` names a group, or a context or member in it (the name people see), with data entries; the rest is kept.
 */
export function setGroupMetadata(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "set_group_metadata",
    title: "Set group metadata",
    description:
      "Names a group, or a context or member in it (the name people see), with data entries; the rest is kept.",
    group: "governance",
    input: z.object({
      group: groupParam,
      context: contextParam.optional().describe("A context of the group instead."),
      member: accountParam.optional().describe("A member of the group instead."),
      name: z.string().optional().describe("The name."),
      data: z.record(z.string(), z.string()).optional().describe("Data entries to set."),
    }),
    annotations: SET,
    run: async ({ group, context, member, name, data }, call) => {
      if (name === undefined && data === undefined) {
        throw new Error("Pass name, data or both: there is nothing to change.");
      }
      if (context !== undefined && member !== undefined) {
        throw new Error("Pass context or member, not both.");
      }
      const o = callOptions(call);
      if (context === undefined && member === undefined) {
        const current = await readGroupMetadata(deps, group, o);
        await admin.setGroupMetadata(group, mergeMetadata(current, { name, data }), o);
        return textResult(`Group ${group}'s metadata was updated.`);
      }
      const target = context !== undefined
        ? { context: await contextArg(deps, context, o) }
        : { member: member! };
      const what = "context" in target ? `context ${target.context}` : `member ${target.member}`;
      try {
        const record = await admin.getTargetMetadata(group, target, o);
        const next = mergeMetadata(
          { name: record?.name ?? null, data: record?.data ?? {} },
          { name, data },
        );
        await admin.setTargetMetadata(group, target, next, o);
      } catch (error) {
        throw explainBare500(
          error,
          `The node refused to set the metadata of ${what} in group ${group} without saying why (HTTP 500): in core it must belong to the group (describe_group, list_group_members), and this node must be an admin or hold manage_metadata.`,
        );
      }
      return textResult(`The metadata of ${what} in group ${group} was updated.`);
    },
  });
}

/** `set_default_capabilities` sets the capabilities a group's new members start with (by name). */
export function setDefaultCapabilities(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "set_default_capabilities",
    title: "Set default capabilities",
    description: "Sets the capabilities a group's new members start with (by name).",
    group: "governance",
    input: z.object({
      group: groupParam,
      capabilities: z.array(z.enum(CAPABILITY_NAMES)).max(CAPABILITY_NAMES.length).describe(
        "Every capability a new member gets ([]: none).",
      ),
    }),
    asks: "when it grants any",
    annotations: SET,
    run: async ({ group, capabilities }, call) => {
      const bits = withCapabilities(0, capabilities, []);
      const act = async () => {
        try {
          await admin.setDefaultCapabilities(group, bits, callOptions(call));
        } catch (error) {
          throw explainBare500(
            error,
            `The node refused to set group ${group}'s default capabilities without saying why (HTTP 500): in core only an admin may.`,
          );
        }
        return textResult(
          `New members of group ${group} start with: ${
            capabilities.length > 0 ? capabilities.join(", ") : "no capabilities"
          }. Existing members keep theirs (set_member_capabilities changes them).`,
        );
      };
      if (capabilities.length === 0) return await act();
      return await confirmed(
        call,
        `Give every future member of group ${group} ${capabilities.join(", ")}? ${
          capabilityPower(capabilities)
        }`,
        { group, capabilities: bits },
        act,
      );
    },
  });
}

/** `set_auto_follow` sets whether a member joins a group's new contexts and subgroups by itself. */
export function setAutoFollow(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "set_auto_follow",
    title: "Set member auto-follow",
    description: "Whether a member joins a group's new contexts and subgroups by itself.",
    group: "governance",
    input: z.object({
      group: groupParam,
      member: accountParam,
      contexts: z.boolean().describe("Join new contexts by itself."),
      subgroups: z.boolean().describe("Join new subgroups by itself."),
    }),
    annotations: SET,
    run: async ({ group, member, contexts, subgroups }, call) => {
      try {
        await admin.setMemberAutoFollow(group, member, { contexts, subgroups }, callOptions(call));
      } catch (error) {
        throw explainBare500(
          error,
          `The node refused to set ${member}'s auto-follow in group ${group} without saying why (HTTP 500): in core the account must be a member of the group (list_group_members shows them).`,
        );
      }
      return textResult(
        `${member} ${contexts ? "joins" : "does not join"} group ${group}'s new contexts and ${
          subgroups ? "joins" : "does not join"
        } its new subgroups by itself.`,
      );
    },
  });
}

/**
 * Reads a group's metadata record (`GET /groups/:id/metadata`, through the client's HTTP core: the admin
 * API has no method for it yet). A node without that route (bare 404) → what the group record carries.
 */
async function readGroupMetadata(
  deps: ToolDeps,
  group: string,
  o: CallOptions,
): Promise<{ name: string | null; data: Record<string, string> }> {
  const { client } = await deps.node.connection();
  try {
    const record = await client.http.request<unknown>({
      method: "GET",
      path: `/admin-api/groups/${encodeURIComponent(group)}/metadata`,
      call: o,
    });
    return currentMetadata({ metadata: isObject(record) ? record : null } as GroupInfo);
  } catch (error) {
    const bare404 = error instanceof NodeHttpError && error.status === 404 &&
      error.body.trim() === "";
    if (!bare404) throw error;
    const standing = await groupStanding(deps.node.admin, group, o);
    if (standing.standing !== "member") {
      throw new Error(`Cannot read the metadata of ${group}: ${standingProblem(standing, group)}.`);
    }
    return currentMetadata(standing.group);
  }
}

/** A group's metadata as read: its `metadata` record when the node sends one, else its `name`. */
export function currentMetadata(
  info: GroupInfo,
): { name: string | null; data: Record<string, string> } {
  const meta = isObject(info.metadata) ? info.metadata : null;
  const name = meta?.name ?? (typeof info.name === "string" ? info.name : null);
  const data = isObject(meta?.data) ? meta.data as Record<string, string> : {};
  return { name: typeof name === "string" ? name : null, data };
}

/** The record to write back: given fields changed, data keys merged, everything else kept. */
export function mergeMetadata(
  current: { name: string | null; data: Record<string, string> },
  change: { name?: string; data?: Record<string, string> },
): { name?: string; data: Record<string, string> } {
  const name = change.name ?? current.name;
  const data = { ...current.data, ...(change.data ?? {}) };
  return name === null ? { data } : { name, data };
}
