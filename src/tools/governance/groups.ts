// Groups inside a namespace: describe, sync, create, delete, leave, detach a context, join an open one.

import { contextArg } from "../context_arg.ts";
import { z } from "zod";
import {
  callOptions,
  confirmed,
  defineTool,
  DESTRUCTIVE,
  output,
  READ_ONLY,
  SET,
  type Tool,
  WRITE,
} from "../tool.ts";
import { describeError, explainBare500 } from "../../answer/errors.ts";
import { jsonResult, textResult } from "../../answer/result.ts";
import { collectPages, listOutput, listPage, pageInput } from "../list.ts";
import type { CallOptions } from "../../mero/mod.ts";
import { groupStanding, standingProblem } from "../membership.ts";
import { aliasNote } from "../../calls/context.ts";
import type { ToolDeps } from "../deps.ts";
import { contextParam, groupParam, namespaceParam, nonEmpty, visibilityParam } from "../params.ts";

/** `describe_group` shows a group or namespace: summary, subgroups, and its contexts (paged). */
export function describeGroup(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "describe_group",
    title: "Describe group",
    description: "Shows a group or namespace: summary, subgroups, and its contexts (paged).",
    group: "governance",
    keywords: ["subgroups", "children", "tree", "list", "show", "members", "contexts"],
    input: z.object({
      group: groupParam,
      ...pageInput,
      subgroups_offset: z.number().int().min(0).max(1_000_000_000).optional().describe(
        "From subgroups_next.",
      ),
    }),
    output: listOutput("contexts", {
      groupId: "string",
      namespace: "boolean",
      summary: "object?",
      subgroups: "array",
    }),
    annotations: READ_ONLY,
    large: true,
    run: async (args, call) => {
      const o = callOptions(call);
      // A namespace is a root group: its summary comes from the namespace route, a subgroup's from the group
      // route (members only). Each part is read on its own; one the node refuses says why in `notes`.
      const [namespace, info, subgroups, contexts] = await Promise.all([
        admin.getNamespace(args.group, o).catch(() => null),
        admin.getGroup(args.group, o).catch((error: unknown) => ({ error })),
        admin.listSubgroups(args.group, o).catch((error: unknown) => ({ error })),
        collectPages(
          (page) => admin.listGroupContexts(args.group, page, o),
          (c) => c.contextId,
          args.offset,
          args.limit,
        ).catch((error: unknown) => ({ error })),
      ]);
      const notes: string[] = [];
      const part = <T>(value: T | { error: unknown }, what: string): T | null => {
        if (value !== null && typeof value === "object" && "error" in value) {
          notes.push(`${what}: ${describeError(value.error)}`);
          return null;
        }
        return value as T;
      };
      const summary = namespace ?? part(info, "summary");
      const groups = part(subgroups, "subgroups") ?? [];
      const listed = part(contexts, "contexts");
      if (summary === null && listed === null) {
        // core answers a non-member's and a stranger's read alike (a bare 500 at 051f0848): which is it?
        const standing = await groupStanding(admin, args.group, o).catch(() => null);
        const problem = standing === null ? null : standingProblem(standing, args.group);
        throw new Error(
          problem !== null
            ? `Group ${args.group} cannot be read here: ${problem}.`
            : `Group ${args.group} cannot be read here (${
              notes.join("; ")
            }). Check the id (list_namespaces shows this node's namespaces), or join the group first.`,
        );
      }
      // The subgroups are the node's whole list: shown SUBGROUPS_SHOWN at a time.
      const from = args.subgroups_offset ?? 0;
      const shown = groups.slice(from, from + SUBGROUPS_SHOWN);
      const more = groups.length > from + shown.length;
      return jsonResult({
        groupId: args.group,
        namespace: namespace !== null,
        summary,
        subgroups: shown,
        ...(more
          ? {
            subgroups_next: from + shown.length,
            subgroups_note: `${groups.length} subgroups in all: pass subgroups_offset: ${
              from + shown.length
            } for the next ones.`,
          }
          : {}),
        ...listPage(
          "contexts",
          listed?.items ?? [],
          args,
          deps.config,
          listed?.truncated ?? false,
        ),
        ...(notes.length > 0 ? { notes } : {}),
      });
    },
  });
}

/** `sync_group` fetches a group's state (members, contexts, app) from peers now. */
export function syncGroup(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "sync_group",
    title: "Sync group",
    description: "Fetches a group's state (members, contexts, app) from peers now.",
    group: "governance",
    input: z.object({ group: groupParam }),
    output: output({ groupId: "string", memberCount: "integer", contextCount: "integer" }, [
      "groupId",
    ]),
    annotations: SET,
    run: async ({ group }, call) => jsonResult(await admin.syncGroup(group, callOptions(call))),
  });
}

/** `delete_group` deletes a subgroup with every subgroup and context under it. */
export function deleteGroup(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "delete_group",
    title: "Delete group",
    description: "Deletes a subgroup with every subgroup and context under it.",
    group: "governance",
    input: z.object({ group: groupParam }),
    output: output({ groupId: "string", isDeleted: "boolean" }, ["groupId"]),
    annotations: DESTRUCTIVE,
    run: async ({ group }, call) => {
      const o = callOptions(call);
      await refuseNamespace(admin, group, "delete_namespace", o);
      // The question says what goes with it: core cascades (crates/context/src/handlers/delete_group.rs).
      const [subgroups, contexts] = await Promise.all([
        admin.listSubgroups(group, o).catch(() => null),
        admin.listGroupContexts(group, { limit: 100 }, o).catch(() => null),
      ]);
      const under = [
        subgroups === null
          ? null
          : `${subgroups.length} subgroup${subgroups.length === 1 ? "" : "s"}`,
        contexts === null
          ? null
          : `${contexts.length === 100 ? "100 or more" : contexts.length} context${
            contexts.length === 1 ? "" : "s"
          }`,
      ].filter((p) => p !== null);
      return await confirmed(
        call,
        `Delete group ${group} and everything under it${
          under.length > 0 ? ` (${under.join(" and ")} of its own, and theirs)` : ""
        }? Their contexts are deleted on every member's node; this cannot be undone.`,
        { group },
        async () => {
          try {
            const answer = await admin.deleteGroup(group, o);
            return jsonResult({ groupId: group, isDeleted: answer?.isDeleted ?? true });
          } catch (error) {
            throw explainBare500(
              error,
              `The node refused to delete group ${group} without saying why (HTTP 500). In core only the group's owner, an admin of its namespace or a member holding delete_subgroup may delete it; list_group_members shows roles.`,
            );
          }
        },
      );
    },
  });
}

/** `leave_group`: this node leaves a subgroup it is a member of. */
export function leaveGroup(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "leave_group",
    title: "Leave group",
    description: "This node leaves a subgroup it is a member of.",
    group: "governance",
    input: z.object({ group: groupParam }),
    output: output({ groupId: "string", memberPublicKey: "string" }, ["groupId"]),
    annotations: DESTRUCTIVE,
    run: async ({ group }, call) => {
      const o = callOptions(call);
      await refuseNamespace(admin, group, "leave_namespace", o);
      return await confirmed(
        call,
        `Leave group ${group} with this node? Its contexts stop reaching this node; coming back needs an admin to add this node (or join_open_group for an open subgroup).`,
        { group },
        async () => {
          try {
            return jsonResult(await admin.leaveGroup(group, o));
          } catch (error) {
            throw explainBare500(
              error,
              `The node refused to leave group ${group} without saying why (HTTP 500): in core a node leaves only a group it is a direct member of (list_group_members shows them; leave the parent where membership comes from it).`,
            );
          }
        },
      );
    },
  });
}

/** `detach_context` removes a context from a group: the group's membership no longer grants it. */
export function detachContext(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "detach_context",
    title: "Detach context from group",
    description: "Removes a context from a group: the group's membership no longer grants it.",
    group: "governance",
    keywords: ["remove", "ungroup", "group", "unlink"],
    input: z.object({ group: groupParam, context: contextParam }),
    annotations: DESTRUCTIVE,
    run: async ({ group, context }, call) => {
      const o = callOptions(call);
      const id = await contextArg(deps, context, o);
      return await confirmed(
        call,
        `Detach context ${id}${
          aliasNote(context, id)
        } from group ${group}? It stays on the nodes that hold it, but the group's members no longer get it through the group.`,
        { group, context: id },
        async () => {
          try {
            await admin.detachContext(group, id, o);
          } catch (error) {
            throw explainBare500(
              error,
              `The node refused to detach context ${id} from group ${group} without saying why (HTTP 500): in core the context must belong to that group (describe_group lists its contexts) and this node must be allowed to manage it.`,
            );
          }
          return textResult(`Context ${id} no longer belongs to group ${group}.`);
        },
      );
    },
  });
}

/** `create_group` creates a group in a namespace, or a subgroup of `parent`. */
export function createGroup(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "create_group",
    title: "Create group",
    description: "Creates a group in a namespace, or a subgroup of `parent`.",
    group: "governance",
    input: z.object({
      namespace: namespaceParam,
      name: z.string().optional().describe("Group name."),
      visibility: visibilityParam.optional(),
      parent: nonEmpty("Parent group id (64 hex).").optional(),
    }),
    output: output({ groupId: "string" }, ["groupId"]),
    annotations: WRITE,
    run: async ({ namespace, name, visibility, parent }, call) => {
      const o = callOptions(call);
      const named = name !== undefined ? { name } : {};
      let groupId: string;
      if (parent === undefined) {
        // One write: the namespace route takes the visibility at creation.
        ({ groupId } = await admin.createGroupInNamespace(
          namespace,
          { ...named, ...(visibility !== undefined ? { visibility } : {}) },
          o,
        ));
        return jsonResult({ groupId });
      } else {
        // The subgroup runs its parent's app; reading the parent needs membership there (core get_group_info.rs).
        const standing = await groupStanding(admin, parent, o);
        if (standing.standing !== "member") {
          throw new Error(
            `Cannot create a subgroup of ${parent}: ${standingProblem(standing, parent)}.`,
          );
        }
        const { targetApplicationId } = standing.group;
        ({ groupId } = await admin.createGroup(
          { applicationId: targetApplicationId, parentGroupId: parent, ...named },
          o,
        ));
      }
      if (visibility !== undefined) {
        try {
          await admin.setSubgroupVisibility(groupId, visibility, o);
        } catch (error) {
          throw new Error(
            `Group ${groupId} was created, but setting its visibility to "${visibility}" failed (${
              describeError(error).replace(/\.$/, "")
            }). Retry with set_group_visibility (group "${groupId}", visibility "${visibility}").`,
          );
        }
      }
      return jsonResult({ groupId });
    },
  });
}

/** `join_open_group` joins an open group via this node's namespace membership. */
export function joinOpenGroup(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "join_open_group",
    title: "Join open group",
    description: "Joins an open group via this node's namespace membership.",
    group: "governance",
    input: z.object({ group: groupParam }),
    output: output({ groupId: "string", memberPublicKey: "string", wasInherited: "boolean" }),
    annotations: WRITE,
    run: async ({ group }, call) => {
      const joined = await admin.joinGroupViaInheritance(group, callOptions(call));
      return jsonResult({
        groupId: joined.groupId,
        memberPublicKey: joined.memberPublicKey,
        wasInherited: joined.wasInherited,
      });
    },
  });
}

/** The most subgroups describe_group shows at once. */
const SUBGROUPS_SHOWN = 50;

/**
 * Refuses, before anything is asked or sent, a group that is a namespace (a root group): core answers a bare 500
 * for it on the subgroup routes, and the namespace has its own tool.
 */
async function refuseNamespace(
  admin: ToolDeps["node"]["admin"],
  group: string,
  instead: string,
  o: CallOptions,
): Promise<void> {
  const namespace = await admin.getNamespace(group, o).catch(() => null);
  if (namespace !== null) {
    throw new Error(`${group} is a namespace, not a subgroup: use ${instead} for it.`);
  }
}
