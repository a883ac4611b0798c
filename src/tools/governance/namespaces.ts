// Namespaces: create, delete, invite to, join and leave one. A namespace is a root group; an invitation is
// a credential to its every context, so making one is the person's decision.

import { z } from "zod";
import {
  callOptions,
  confirmed,
  defineTool,
  DESTRUCTIVE,
  output,
  type Tool,
  whileWaiting,
  WRITE,
} from "../tool.ts";
import { jsonResult, textResult } from "../../answer/result.ts";
import {
  type CallOptions,
  type Invitation,
  JOIN_NAMESPACE_TIMEOUT_MS,
  NodeHttpError,
} from "../../mero/mod.ts";
import { isObject, parseJson } from "../../lib/json.ts";
import type { ToolDeps } from "../deps.ts";
import { applicationParam, namespaceParam } from "../params.ts";
import { ownRole } from "../membership.ts";

/** `create_namespace` creates a namespace: an app's root group, holding its contexts. */
export function createNamespace(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
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
    run: async ({ application, name }, call) => {
      const app = await deps.apps.resolve(application);
      const created = await admin.createNamespace(
        { applicationId: app.id, ...(name !== undefined ? { name } : {}) },
        callOptions(call),
      );
      return jsonResult({ namespaceId: created.namespaceId });
    },
  });
}

/** `delete_namespace` deletes a namespace; its contexts outlive it. */
export function deleteNamespace(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "delete_namespace",
    title: "Delete namespace",
    description: "Deletes a namespace; its contexts outlive it.",
    group: "governance",
    input: z.object({ namespace: namespaceParam }),
    annotations: DESTRUCTIVE,
    run: async ({ namespace }, call) =>
      await confirmed(
        call,
        `Delete namespace ${namespace}? Its contexts outlive it, but the group and its membership are gone.`,
        { namespace },
        async () =>
          textResult(
            await admin.deleteNamespace(namespace, callOptions(call)) ??
              `Namespace ${namespace} was deleted.`,
          ),
      ),
  });
}

/**
 * `invite_to_namespace` creates a signed invitation to a namespace: pass `invitation` as is to join_namespace on the other node.
 */
export function inviteToNamespace(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "invite_to_namespace",
    title: "Invite to namespace",
    description:
      "Creates a signed invitation to a namespace: pass `invitation` as is to join_namespace on the other node.",
    group: "governance",
    input: z.object({
      namespace: namespaceParam,
      valid_for_s: z.number().int().min(1).max(10 * 365 * 86_400).optional().describe(
        "Seconds it stays valid (default the node's: a year).",
      ),
    }),
    // No output schema: the invitation is signed over exact integers, which a structured copy (JSON numbers)
    // would round; the text is the one form to pass on.
    asks: "always",
    annotations: WRITE,
    run: async ({ namespace, valid_for_s }, call) => {
      const validity = valid_for_s === undefined
        ? "for a year (the node's default)"
        : `for ${valid_for_s} s`;
      try {
        return await confirmed(
          call,
          `Create an invitation to namespace ${namespace}, valid ${validity}? Whoever holds it can join the namespace from their node and read every context in it; it cannot be taken back once used (only removing the member).`,
          { namespace, grant: "invitation", valid_for_s: valid_for_s ?? null },
          async () =>
            textResult(
              await admin.inviteToNamespace(namespace, callOptions(call), {
                validForSeconds: valid_for_s,
              }),
            ),
        );
      } catch (error) {
        // core invites to a root group only (admin/handlers/namespaces/invite_namespace.rs).
        if (
          error instanceof NodeHttpError && error.status === 400 && /root group/.test(error.body)
        ) {
          throw new Error(
            `${namespace} is a subgroup, not a namespace: invitations are to a namespace (the root group). Invite to the namespace that holds it, then add_group_members to this subgroup (or, for an open subgroup, the member joins it with join_open_group).`,
          );
        }
        throw error;
      }
    },
  });
}

/** `join_namespace` joins a namespace with an invitation from another node (may take a minute). */
export function joinNamespace(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
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
      {
        namespaceId: "string",
        memberIdentity: "string",
        memberAccount: "string",
        contexts: "array",
        note: "string",
      },
      ["namespaceId"],
    ),
    annotations: WRITE,
    run: async ({ namespace, invitation, groupName }, call) => {
      const request = joinRequest(invitation, groupName);
      // core refuses an expired invitation with a bare 500 ("invitation expired": join_group.rs); it says when.
      const expiry = invitationExpiry(request.invitation);
      if (expiry !== null && expiry.getTime() < Date.now()) {
        throw new Error(
          `This invitation expired at ${expiry.toISOString()}, so it was not sent. Ask the inviting node for a new one (invite_to_namespace there).`,
        );
      }
      const joined = await whileWaiting(
        call,
        "Joining",
        admin.joinNamespace(namespace, request, callOptions(call, JOIN_NAMESPACE_TIMEOUT_MS)),
      );
      return jsonResult({
        ...joined,
        ...await followed(deps, joined.namespaceId, callOptions(call)),
      });
    },
  });
}

/** `leave_namespace` leaves a namespace. */
export function leaveNamespace(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "leave_namespace",
    title: "Leave namespace",
    description: "Leaves a namespace.",
    group: "governance",
    input: z.object({ namespace: namespaceParam }),
    annotations: DESTRUCTIVE,
    run: async ({ namespace }, call) => {
      const o = callOptions(call);
      // core keeps one admin in every group and never lets the owner (the node that created it) leave
      // (governance-store ops/group/member_left.rs: LastAdmin, OwnerCannotSelfLeave); at 051f0848 both are a bare
      // 500. The last admin is known before asking; the owner only once the node refuses.
      const standing = await ownRole(admin, namespace, o).catch(() => null);
      const onlyAdmin = standing?.role === "Admin" && standing.admins === 1;
      if (onlyAdmin) throw new Error(lastAdminLeaving(namespace));
      return await confirmed(
        call,
        `Leave namespace ${namespace} with this node? Rejoining needs a new invitation.`,
        { namespace },
        async () => {
          try {
            await admin.leaveNamespace(namespace, o);
          } catch (error) {
            if (!(error instanceof NodeHttpError) || error.status !== 500) throw error;
            throw new Error(
              `The node refused to leave namespace ${namespace} without saying why (HTTP 500). ${
                standing?.role === "Admin"
                  ? "This node is an admin there: if it created the namespace it is its owner, and core does not let the owner leave (ownership cannot be handed over through the node's API); delete_namespace removes it instead, if nobody needs it."
                  : "Its log says why."
              }`,
            );
          }
          return textResult(`This node left namespace ${namespace}.`);
        },
      );
    },
  });
}

/** The most followed contexts join_namespace asks the sync state of. */
const FOLLOWED_SHOWN = 20;

/**
 * The contexts a node follows by itself after joining a namespace (core auto-follow: crates/context/src/
 * auto_follow.rs), each with whether its state is here yet: until it syncs, calls answer `Uninitialized`.
 */
async function followed(
  deps: ToolDeps,
  namespaceId: string,
  o: CallOptions,
): Promise<{ contexts: Record<string, unknown>[]; note: string } | Record<string, never>> {
  const listed = await deps.node.admin.listGroupContexts(namespaceId, { limit: FOLLOWED_SHOWN }, o)
    .catch(() => null);
  if (listed === null || listed.length === 0) return {};
  const contexts = await Promise.all(listed.map(async ({ contextId, name }) => {
    const status = await deps.node.rpc.syncStatus(contextId, o).catch(() => null);
    return {
      contextId,
      ...(name ? { name } : {}),
      ...(status ? { isInitialized: status.isInitialized, syncState: status.syncState } : {}),
    };
  }));
  const pending = contexts.filter((c) => c.isInitialized === false).length;
  return {
    contexts,
    note: `This node now follows the namespace's contexts by itself (no join_context needed).${
      pending > 0
        ? ` ${pending} of them ${
          pending === 1 ? "has" : "have"
        } not synced yet: calls there answer Uninitialized until they do; sync_context asks the node to sync one now and says how far it is.`
        : ""
    }`,
  };
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

/** Why this node, the namespace's only admin, cannot leave it, and what to do instead. */
function lastAdminLeaving(namespace: string): string {
  return `This node is the only admin of namespace ${namespace}, and core keeps one admin in every group (and does not let the node that created a namespace leave it at all): nothing was sent. Make another member Admin first (set_member_role), or remove the namespace with delete_namespace if nobody needs it.`;
}

/**
 * When a signed invitation ends, or null when it never does (0) or does not say. core writes
 * `expiration_timestamp` in seconds since the epoch (create_group_invitation.rs) and compares it with its clock
 * before anything else (join_group.rs); a value too large for seconds is read as nanoseconds.
 */
export function invitationExpiry(signed: Record<string, unknown>): Date | null {
  const inner = signed.invitation;
  const raw = isObject(inner) ? inner.expiration_timestamp : undefined;
  const value = typeof raw === "bigint" ? Number(raw) : raw;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return null;
  return new Date(value > 1e14 ? value / 1e6 : value * 1000);
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
