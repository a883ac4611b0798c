// The governance toolset: namespaces (an app's root group), invitations between nodes, and groups.
// Invitations are signed by the inviter: they travel with the same keys, order and exact integers.

import { z } from "zod";
import {
  callOptions,
  defineTool,
  DESTRUCTIVE,
  output,
  READ_ONLY,
  type Tool,
  whileWaiting,
  WRITE,
} from "./tool.ts";
import { describeError } from "../errors.ts";
import { jsonResult, textResult } from "../result.ts";
import { collectPages, listOutput, listPage, pageInput } from "./list.ts";
import { JOIN_NAMESPACE_TIMEOUT_MS } from "../mero/admin_groups.ts";
import {
  type CallOptions,
  type GroupInfo,
  type Invitation,
  NodeHttpError,
} from "../mero/client.ts";
import { parseJson } from "../mero/json.ts";
import type { ToolContext } from "./context.ts";
import {
  applicationParam,
  groupParam,
  namespaceParam,
  nonEmpty,
  visibilityParam,
} from "./params.ts";

/** The roles a node grants through the admin API; `ReadOnlyTee` only comes from TEE attestation (core admin/mod.rs). */
const ROLES = ["Admin", "Member", "ReadOnly"] as const;

/** A member account as core keys members: 64 hex (join_namespace's `memberAccount`). */
const ACCOUNT = /^[0-9a-fA-F]{64}$/;

/** Idempotent writes: setting the same value twice changes nothing more. */
const SET = { ...WRITE, idempotentHint: true };

/** The governance tools, in listing order. */
export function governanceTools(deps: ToolContext): Tool[] {
  const admin = deps.node.admin;
  return [
    defineTool({
      name: "create_namespace",
      title: "Create namespace",
      description: "Creates a namespace: an app's root group, holding its contexts.",
      group: "governance",
      input: z.object({
        application: applicationParam,
        name: z.string().optional().describe("Name."),
      }),
      output: output({ namespaceId: "string" }, ["namespaceId"]),
      annotations: WRITE,
      run: async ({ application, name }, ctx) => {
        const app = await deps.apps.resolve(application);
        const created = await admin.createNamespace(
          { applicationId: app.id, ...(name !== undefined ? { name } : {}) },
          callOptions(ctx),
        );
        return jsonResult({ namespaceId: created.namespaceId });
      },
    }),
    defineTool({
      name: "delete_namespace",
      title: "Delete namespace",
      description: "Deletes a namespace; its contexts outlive it.",
      group: "governance",
      input: z.object({ namespace: namespaceParam }),
      annotations: DESTRUCTIVE,
      confirm: ({ namespace }) =>
        Promise.resolve(
          `Delete namespace ${namespace}? Its contexts outlive it, but the group and its membership are gone.`,
        ),
      run: async ({ namespace }, ctx) => {
        const answer = await admin.deleteNamespace(namespace, callOptions(ctx));
        return textResult(answer ?? `Namespace ${namespace} was deleted.`);
      },
    }),
    defineTool({
      name: "invite_to_namespace",
      title: "Invite to namespace",
      description:
        "Creates a signed invitation to a namespace: pass `invitation` as is to join_namespace on the other node.",
      group: "governance",
      input: z.object({ namespace: namespaceParam }),
      // No output schema: the invitation is signed over exact integers, which a structured copy (JSON numbers)
      // would round; the text is the one form to pass on.
      annotations: WRITE,
      run: async ({ namespace }, ctx) =>
        textResult(await admin.inviteToNamespace(namespace, callOptions(ctx))),
    }),
    defineTool({
      name: "join_namespace",
      title: "Join namespace",
      description: "Joins a namespace with an invitation from another node (may take a minute).",
      group: "governance",
      input: z.object({
        namespace: namespaceParam,
        invitation: z.union([z.string(), z.looseObject({})], {
          error: "expected the invitation object from invite_to_namespace, or its JSON text",
        }).describe(
          "The invite's invitation as is (object or JSON text).",
        ),
        groupName: z.string().optional().describe("The invite's groupName."),
      }),
      output: output(
        { namespaceId: "string", memberIdentity: "string", memberAccount: "string" },
        ["namespaceId"],
      ),
      annotations: WRITE,
      run: async ({ namespace, invitation, groupName }, ctx) => {
        const request = joinRequest(invitation, groupName);
        const joined = await whileWaiting(
          ctx,
          "Joining",
          admin.joinNamespace(namespace, request, callOptions(ctx, JOIN_NAMESPACE_TIMEOUT_MS)),
        );
        return jsonResult(joined);
      },
    }),
    defineTool({
      name: "leave_namespace",
      title: "Leave namespace",
      description: "Leaves a namespace.",
      group: "governance",
      input: z.object({ namespace: namespaceParam }),
      annotations: DESTRUCTIVE,
      confirm: ({ namespace }) =>
        Promise.resolve(
          `Leave namespace ${namespace} with this node? Rejoining needs a new invitation.`,
        ),
      run: async ({ namespace }, ctx) => {
        await admin.leaveNamespace(namespace, callOptions(ctx));
        return textResult(`This node left namespace ${namespace}.`);
      },
    }),
    defineTool({
      name: "list_group_members",
      title: "List group members",
      description: "Lists a group's members and roles.",
      group: "governance",
      input: z.object({ group: groupParam, ...pageInput }),
      output: listOutput("members"),
      annotations: READ_ONLY,
      large: true,
      run: async (args, ctx) => {
        const o = callOptions(ctx);
        const { items, truncated } = await collectPages(
          async (page) => (await admin.listGroupMembers(args.group, page, o)).members,
          (member) => `${member.identity}`,
          args.offset,
          args.limit,
        );
        return jsonResult(listPage("members", items, args, deps.config, truncated));
      },
    }),
    defineTool({
      name: "add_group_members",
      title: "Add group members",
      description:
        "Adds group members with roles; identity = the memberAccount (64 hex) from their join_namespace.",
      group: "governance",
      input: z.object({
        group: groupParam,
        members: z.array(z.object({
          identity: nonEmpty(
            "Member account, 64 hex (a signing key works only if the node knows it).",
          ),
          role: z.enum(ROLES),
        })).min(1).describe("Members to add."),
      }),
      annotations: WRITE,
      run: async ({ group, members }, ctx) => {
        try {
          await admin.addGroupMembers(group, members, callOptions(ctx));
        } catch (error) {
          // core resolves a key to an account at the namespace and, when it cannot, answers an untyped 500
          // (crates/context/src/handlers/add_group_members.rs → member_account.rs; admin/service.rs).
          const keys = members.filter((m) => !ACCOUNT.test(m.identity)).map((m) => m.identity);
          if (error instanceof NodeHttpError && error.status === 500 && keys.length > 0) {
            throw new Error(
              `The node could not add ${
                keys.join(", ")
              }: a signing key must resolve to a member account, and ` +
                "this one did not. Pass the member's account instead (64 hex: the memberAccount their " +
                "join_namespace returned).",
            );
          }
          throw error;
        }
        const who = members.map((m) => `${m.identity} as ${m.role}`).join(", ");
        return textResult(`Added to group ${group}: ${who}.`);
      },
    }),
    defineTool({
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
      run: async ({ namespace, name, visibility, parent }, ctx) => {
        const o = callOptions(ctx);
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
          const { targetApplicationId } = await admin.getGroup(parent, o);
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
    }),
    defineTool({
      name: "set_group_visibility",
      title: "Set group visibility",
      description: "Sets who may join a group.",
      group: "governance",
      input: z.object({ group: groupParam, visibility: visibilityParam }),
      annotations: SET,
      run: async ({ group, visibility }, ctx) => {
        await admin.setSubgroupVisibility(group, visibility, callOptions(ctx));
        return textResult(`Group ${group} is now ${visibility}.`);
      },
    }),
    defineTool({
      name: "set_group_metadata",
      title: "Set group metadata",
      description: "Sets a group's name and data entries; the rest is kept.",
      group: "governance",
      input: z.object({
        group: groupParam,
        name: z.string().optional().describe("Group name."),
        data: z.record(z.string(), z.string()).optional().describe("Data entries to set."),
      }),
      annotations: SET,
      run: async ({ group, name, data }, ctx) => {
        if (name === undefined && data === undefined) {
          throw new Error("Pass name, data or both: there is nothing to change.");
        }
        const o = callOptions(ctx);
        const current = await readGroupMetadata(deps, group, o);
        const next = mergeMetadata(current, { name, data });
        await admin.setGroupMetadata(group, next, o);
        return textResult(`Group ${group}'s metadata was updated.`);
      },
    }),
    defineTool({
      name: "join_open_group",
      title: "Join open group",
      description: "Joins an open group via this node's namespace membership.",
      group: "governance",
      input: z.object({ group: groupParam }),
      output: output({ groupId: "string", memberPublicKey: "string", wasInherited: "boolean" }),
      annotations: WRITE,
      run: async ({ group }, ctx) => {
        const joined = await admin.joinGroupViaInheritance(group, callOptions(ctx));
        return jsonResult({
          groupId: joined.groupId,
          memberPublicKey: joined.memberPublicKey,
          wasInherited: joined.wasInherited,
        });
      },
    }),
  ];
}

/**
 * The join request for an invitation given as an object or as JSON text (parsed losslessly). The whole
 * invite result (`{ invitation: { invitation, … }, groupName? }`) is unwrapped once.
 */
export function joinRequest(
  given: string | Record<string, unknown>,
  groupName: string | undefined,
): { invitation: Invitation; groupName?: string } {
  let invitation = typeof given === "string" ? parseInvitationText(given) : given;
  const inner = invitation.invitation;
  if (isObject(inner) && isObject(inner.invitation)) {
    if (groupName === undefined && typeof invitation.groupName === "string") {
      groupName = invitation.groupName;
    }
    invitation = inner;
  }
  return groupName === undefined ? { invitation } : { invitation, groupName };
}

function parseInvitationText(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    throw new Error(
      "invitation is text but not JSON; pass the invitation object from invite_to_namespace, or its JSON text.",
    );
  }
  if (!isObject(value)) {
    throw new Error(
      "invitation must be the object invite_to_namespace returned (or its JSON text).",
    );
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads a group's metadata record (`GET /groups/:id/metadata`, through the client's HTTP core: the admin
 * API has no method for it yet). A node without that route (bare 404) → what the group record carries.
 */
async function readGroupMetadata(
  deps: ToolContext,
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
    return currentMetadata(await deps.node.admin.getGroup(group, o));
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
