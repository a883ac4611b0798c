// The governance toolset: namespaces (an app's root group), invitations between nodes, and groups.
// Invitations are signed by the inviter: they travel with the same keys, order and exact integers.

import { z } from "zod";
import {
  callOptions,
  confirmed,
  defineTool,
  DESTRUCTIVE,
  output,
  READ_ONLY,
  type Tool,
  type ToolCall,
  whileWaiting,
  WRITE,
} from "./tool.ts";
import { describeError, explainBare500, isKeyScopeRefusal } from "../answer/errors.ts";
import { jsonResult, textResult, type ToolResult } from "../answer/result.ts";
import { collectPages, listOutput, listPage, pageInput } from "./list.ts";
import {
  type CallOptions,
  type GroupInfo,
  type Invitation,
  JOIN_NAMESPACE_TIMEOUT_MS,
  NodeHttpError,
} from "../mero/mod.ts";
import { parseJson } from "../lib/json.ts";
import {
  CAPABILITIES,
  CAPABILITY_NAMES,
  capabilityNames,
  capabilityPower,
  withCapabilities,
} from "./capabilities.ts";
import {
  groupMembers,
  groupStanding,
  memberRow,
  ownAccount,
  standingProblem,
} from "./membership.ts";
import { oneLine } from "../lib/text.ts";
import { aliasNote, contextIdOf } from "../calls/context.ts";
import { appName } from "../apps/resolve.ts";
import type { ToolDeps } from "./deps.ts";
import {
  applicationParam,
  contextParam,
  groupParam,
  namespaceParam,
  nonEmpty,
  visibilityParam,
} from "./params.ts";

/** The roles a node grants through the admin API; `ReadOnlyTee` only comes from TEE attestation (core admin/mod.rs). */
const ROLES = ["Admin", "Member", "ReadOnly"] as const;

/** The most subgroups describe_group shows at once. */
const SUBGROUPS_SHOWN = 50;

/** What an admin of a group may do, as the question before making one says it. */
const ADMIN_POWER =
  "An admin may add and remove members, change roles and capabilities, upgrade the group's app and delete the group (which removes it from every member's node); only another admin can take the role back.";

/** A member account as core keys members: 64 hex (join_namespace's `memberAccount`). */
const ACCOUNT = /^[0-9a-fA-F]{64}$/;

/** A member account as an argument. */
const accountParam = z.string().regex(ACCOUNT, "a member account is 64 hex characters").describe(
  "Member account (64 hex).",
);

/** A member change as `memberChangeProblem` explains it: which accounts, and for a role change the new role. */
type MemberChange =
  | { kind: "remove"; accounts: string[] }
  | { kind: "role"; account: string; role: string }
  | { kind: "capabilities"; account: string };

/**
 * Why a member change failed. Core lets only a group's Admin change members (`governance_preflight` with
 * `require_admin`: crates/context/src/lib.rs:654-667, remove_group_members.rs:24, update_member_role.rs:25,
 * set_member_capabilities.rs:24; the manage_members capability does not suffice), keeps one admin (remove:
 * remove_group_members.rs:29-43; demote: update_member_role.rs:53-61) and reads a role or capabilities of members
 * only (get_member_capabilities.rs:18-29). At 051f0848 each refusal is a bare 500, so the likely cause is asked of
 * the node: this node's role there, the accounts' rows, the admins left. Newer core types them (403 NotAdmin,
 * 409 LastAdmin…) with its own message, which is shown as it is.
 */
async function memberChangeProblem(
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
  const targets = change.kind === "remove" ? change.accounts : [change.account];
  const missing = targets.filter((a) => memberRow(members, a) === undefined);
  if (change.kind !== "remove" && missing.length > 0) {
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

/** Idempotent writes: setting the same value twice changes nothing more. */
const SET = { ...WRITE, idempotentHint: true };

/** The governance tools, in listing order. */
export function governanceTools(deps: ToolDeps): Tool[] {
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
      run: async ({ namespace }, ctx) =>
        await confirmed(
          ctx,
          `Delete namespace ${namespace}? Its contexts outlive it, but the group and its membership are gone.`,
          { namespace },
          async () =>
            textResult(
              await admin.deleteNamespace(namespace, callOptions(ctx)) ??
                `Namespace ${namespace} was deleted.`,
            ),
        ),
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
      run: async ({ namespace }, ctx) => {
        try {
          return await confirmed(
            ctx,
            `Create an invitation to namespace ${namespace}? Whoever holds it can join the namespace from their node and read every context in it; it cannot be taken back once used (only removing the member).`,
            { namespace, grant: "invitation" },
            async () => textResult(await admin.inviteToNamespace(namespace, callOptions(ctx))),
          );
        } catch (error) {
          // core invites to a root group only (admin/handlers/namespaces/invite_namespace.rs:31-41).
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
      run: async ({ namespace, invitation, groupName }, ctx) => {
        const request = joinRequest(invitation, groupName);
        const joined = await whileWaiting(
          ctx,
          "Joining",
          admin.joinNamespace(namespace, request, callOptions(ctx, JOIN_NAMESPACE_TIMEOUT_MS)),
        );
        return jsonResult({
          ...joined,
          ...await followed(deps, joined.namespaceId, callOptions(ctx)),
        });
      },
    }),
    defineTool({
      name: "leave_namespace",
      title: "Leave namespace",
      description: "Leaves a namespace.",
      group: "governance",
      input: z.object({ namespace: namespaceParam }),
      annotations: DESTRUCTIVE,
      run: async ({ namespace }, ctx) =>
        await confirmed(
          ctx,
          `Leave namespace ${namespace} with this node? Rejoining needs a new invitation.`,
          { namespace },
          async () => {
            await admin.leaveNamespace(namespace, callOptions(ctx));
            return textResult(`This node left namespace ${namespace}.`);
          },
        ),
    }),
    defineTool({
      name: "describe_group",
      title: "Describe group",
      description: "Shows a group or namespace: summary, subgroups, and its contexts (paged).",
      group: "governance",
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
      run: async (args, ctx) => {
        const o = callOptions(ctx);
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
    }),
    defineTool({
      name: "sync_group",
      title: "Sync group",
      description: "Fetches a group's state (members, contexts, app) from peers now.",
      group: "governance",
      input: z.object({ group: groupParam }),
      output: output({ groupId: "string", memberCount: "integer", contextCount: "integer" }, [
        "groupId",
      ]),
      annotations: SET,
      run: async ({ group }, ctx) => jsonResult(await admin.syncGroup(group, callOptions(ctx))),
    }),
    defineTool({
      name: "upgrade_group",
      title: "Upgrade group",
      description:
        "Moves every context of a group to another app version (cascade: subgroups too); retry: failed ones.",
      group: "governance",
      input: z.object({
        group: groupParam,
        application: applicationParam.optional().describe(
          "Target app id or name (not with retry).",
        ),
        cascade: z.boolean().optional().describe("Subgroups on the same app too."),
        retry: z.boolean().optional().describe("Retry the contexts whose swap failed."),
      }),
      output: output({ groupId: "string", status: "string", next: "string" }, ["groupId"]),
      annotations: DESTRUCTIVE,
      run: async ({ group, application, cascade, retry }, ctx) => {
        const o = callOptions(ctx);
        const next = "group_upgrade_status shows where each member stands.";
        if (retry) {
          if (application !== undefined) throw new Error("Pass retry or application, not both.");
          // The retry re-runs migrations of an upgrade someone started: named from what the node holds, then asked.
          const status = await admin.groupUpgradeStatus(group, o);
          if (status === null) {
            throw new Error(
              `No upgrade has been made in group ${group}: there is nothing to retry.`,
            );
          }
          const text = (key: string) => oneLine(String(status[key] ?? "?"), 80);
          const failed = typeof status.localContextsFailed === "number"
            ? `${status.localContextsFailed} context(s) failed here`
            : "the contexts whose swap failed";
          return await confirmed(
            ctx,
            `Retry group ${group}'s upgrade from ${text("fromVersion")} to ${
              text("toVersion")
            } (started by ${
              text("initiatedBy")
            }) for ${failed}? Their migrations run again and may rewrite their state.`,
            { group, retry: status.toVersion ?? null, initiatedAt: status.initiatedAt ?? null },
            async () => jsonResult({ ...await admin.retryGroupUpgrade(group, o), next }),
          );
        }
        if (application === undefined) {
          throw new Error("Pass application (the version to move to), or retry: true.");
        }
        const target = await deps.apps.resolve(application);
        return await confirmed(
          ctx,
          `Upgrade every context of group ${group}${
            cascade ? " and of its subgroups on the same app" : ""
          } to ${
            appName(target)
          } (application ${target.id})? Every member's node switches them; a migration may rewrite their state, and going back is another upgrade.`,
          { group, application: target.id, cascade: cascade === true },
          async () => {
            try {
              return jsonResult({
                ...await admin.upgradeGroup(group, target.id, cascade === true, o),
                next,
              });
            } catch (error) {
              throw explainBare500(
                error,
                `The node refused to upgrade group ${group} without saying why (HTTP 500). In core the target must be installed here, signed by the same signer, with a state schema the running one can migrate to (one version at a time), and this node must be an admin or hold manage_application.`,
              );
            }
          },
        );
      },
    }),
    defineTool({
      name: "group_upgrade_status",
      title: "Group upgrade status",
      description: "Shows a group's last upgrade and, for a namespace, each member's migration.",
      group: "governance",
      input: z.object({ group: groupParam }),
      output: output({ groupId: "string", upgrade: "object?", migration: "object?" }, ["groupId"]),
      annotations: READ_ONLY,
      run: async ({ group }, ctx) => {
        const o = callOptions(ctx);
        const [upgrade, migration] = await Promise.all([
          admin.groupUpgradeStatus(group, o),
          admin.migrationStatus(group, o).catch(() => null),
        ]);
        return jsonResult({
          groupId: group,
          upgrade,
          migration,
          ...(upgrade === null ? { note: "No upgrade has been made in this group." } : {}),
        });
      },
    }),
    defineTool({
      name: "delete_group",
      title: "Delete group",
      description: "Deletes a subgroup with every subgroup and context under it.",
      group: "governance",
      input: z.object({ group: groupParam }),
      output: output({ groupId: "string", isDeleted: "boolean" }, ["groupId"]),
      annotations: DESTRUCTIVE,
      run: async ({ group }, ctx) => {
        const o = callOptions(ctx);
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
          ctx,
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
    }),
    defineTool({
      name: "leave_group",
      title: "Leave group",
      description: "This node leaves a subgroup it is a member of.",
      group: "governance",
      input: z.object({ group: groupParam }),
      output: output({ groupId: "string", memberPublicKey: "string" }, ["groupId"]),
      annotations: DESTRUCTIVE,
      run: async ({ group }, ctx) => {
        const o = callOptions(ctx);
        await refuseNamespace(admin, group, "leave_namespace", o);
        return await confirmed(
          ctx,
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
    }),
    defineTool({
      name: "detach_context",
      title: "Detach context from group",
      description: "Removes a context from a group: the group's membership no longer grants it.",
      group: "governance",
      input: z.object({ group: groupParam, context: contextParam }),
      annotations: DESTRUCTIVE,
      run: async ({ group, context }, ctx) => {
        const o = callOptions(ctx);
        const id = await contextIdOf(context, (name) => admin.lookupContextAlias(name, o));
        return await confirmed(
          ctx,
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
        ).catch((error) => {
          // Only a member may list them: core's typed NotAGroupMember, a 403 (crates/context/src/handlers/
          // list_group_members.rs:23-52).
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
    }),
    defineTool({
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
      annotations: WRITE,
      run: async ({ group, members }, ctx) => {
        // Making someone an admin hands over the group (its members, its contexts, deleting it): the person decides.
        const admins = members.filter((m) => m.role === "Admin").map((m) => m.identity);
        if (admins.length === 0) return await addMembers(group, members, ctx);
        return await confirmed(
          ctx,
          `Make ${admins.join(", ")} ${
            admins.length === 1 ? "an admin" : "admins"
          } of group ${group}? ${ADMIN_POWER}`,
          { group, members },
          () => addMembers(group, members, ctx),
        );
      },
    }),
    defineTool({
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
      run: async ({ group, members, denyNonMembers }, ctx) => {
        const o = callOptions(ctx);
        // Core does not refuse an account that is no member: it records the removal, which deny-lists the account
        // (crates/governance-store/src/ops/group/member_removed.rs:25-62), so a mistyped account would be barred
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
          ctx,
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
    }),
    defineTool({
      name: "set_member_role",
      title: "Set member role",
      description: "Sets a group member's role.",
      group: "governance",
      input: z.object({
        group: groupParam,
        member: accountParam,
        role: z.enum(ROLES).describe("The new role."),
      }),
      // A demotion may not be undoable (the last admin demoted leaves no one to restore it), and a promotion hands
      // over power: every change is asked about.
      annotations: { ...SET, destructiveHint: true },
      run: async ({ group, member, role }, ctx) => {
        const o = callOptions(ctx);
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
          ctx,
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
    }),
    defineTool({
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
      annotations: SET,
      run: async ({ group, member, grant, revoke }, ctx) => {
        const unknown = [...grant ?? [], ...revoke ?? []].filter((n) => !(n in CAPABILITIES));
        if (unknown.length > 0) {
          throw new Error(
            `Unknown capabilit${unknown.length === 1 ? "y" : "ies"} ${
              unknown.map((n) => `"${oneLine(n, 40)}"`).join(", ")
            }: the names are ${CAPABILITY_NAMES.join(", ")}.`,
          );
        }
        const o = callOptions(ctx);
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
        if (gained.length === 0) return await setCapabilities(group, member, before, wanted, ctx);
        return await confirmed(
          ctx,
          `Grant ${member} ${gained.join(", ")} in group ${group}? ${capabilityPower(gained)}`,
          { group, member, capabilities: wanted, before },
          () => setCapabilities(group, member, before, wanted, ctx),
        );
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
    }),
    defineTool({
      name: "set_group_visibility",
      title: "Set group visibility",
      description: "Sets who may join a group.",
      group: "governance",
      input: z.object({ group: groupParam, visibility: visibilityParam }),
      annotations: SET,
      run: async ({ group, visibility }, ctx) => {
        const act = async () => {
          await admin.setSubgroupVisibility(group, visibility, callOptions(ctx));
          return textResult(`Group ${group} is now ${visibility}.`);
        };
        if (visibility !== "open") return await act();
        return await confirmed(
          ctx,
          `Open group ${group} to every member of its namespace? Any of them may then join it and read its contexts.`,
          { group, visibility },
          act,
        );
      },
    }),
    defineTool({
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
      run: async ({ group, context, member, name, data }, ctx) => {
        if (name === undefined && data === undefined) {
          throw new Error("Pass name, data or both: there is nothing to change.");
        }
        if (context !== undefined && member !== undefined) {
          throw new Error("Pass context or member, not both.");
        }
        const o = callOptions(ctx);
        if (context === undefined && member === undefined) {
          const current = await readGroupMetadata(deps, group, o);
          await admin.setGroupMetadata(group, mergeMetadata(current, { name, data }), o);
          return textResult(`Group ${group}'s metadata was updated.`);
        }
        const target = context !== undefined
          ? { context: await contextIdOf(context, (n) => admin.lookupContextAlias(n, o)) }
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
    }),
    defineTool({
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
      annotations: SET,
      run: async ({ group, capabilities }, ctx) => {
        const bits = withCapabilities(0, capabilities, []);
        const act = async () => {
          try {
            await admin.setDefaultCapabilities(group, bits, callOptions(ctx));
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
          ctx,
          `Give every future member of group ${group} ${capabilities.join(", ")}? ${
            capabilityPower(capabilities)
          }`,
          { group, capabilities: bits },
          act,
        );
      },
    }),
    defineTool({
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
      run: async ({ group, member, contexts, subgroups }, ctx) => {
        try {
          await admin.setMemberAutoFollow(group, member, { contexts, subgroups }, callOptions(ctx));
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

  /** Sets a member's capabilities and reads back what the node kept. */
  async function setCapabilities(
    group: string,
    member: string,
    before: number,
    wanted: number,
    ctx: ToolCall,
  ): Promise<ToolResult> {
    const o = callOptions(ctx);
    await admin.setMemberCapabilities(group, member, wanted, o).catch(async (error) => {
      throw await memberChangeProblem(deps, error, group, {
        kind: "capabilities",
        account: member,
      }, o);
    });
    // Read back: core keeps only the bits it knows (`from_bits_truncate`: set_member_capabilities.rs:55-58),
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

  /** Adds members, with the node's refusal of an unresolvable signing key explained. */
  async function addMembers(
    group: string,
    members: { identity: string; role: typeof ROLES[number] }[],
    ctx: ToolCall,
  ): Promise<ToolResult> {
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
  }
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
