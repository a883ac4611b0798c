// The node's contexts: list them, join one, leave one, list its identities, delete one. Leaving and deleting
// cannot be undone, so they are asked about, naming the context the alias pointed at.

import { contextArg } from "../context_arg.ts";
import { z } from "zod";
import {
  callOptions,
  confirmed,
  defineTool,
  DESTRUCTIVE,
  output,
  READ_ONLY,
  type Tool,
  whileWaiting,
  WRITE,
} from "../tool.ts";
import { jsonResult, textResult } from "../../answer/result.ts";
import { aliasNote } from "../../calls/context.ts";
import { collectPages, fromOffset, listOutput, listPage, pageInput } from "../list.ts";
import { type Context, NodeHttpError, unlessMissing } from "../../mero/mod.ts";
import type { ToolDeps } from "../deps.ts";
import { joinedHere, NOT_JOINED_NOTE, ownRole } from "../membership.ts";
import { applicationParam, contextIdParam, contextParam } from "../params.ts";
import { notHeld } from "./not_held.ts";

/** `list_contexts` lists contexts: all, or one application's. */
export function listContexts(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "list_contexts",
    title: "List contexts",
    description: "Lists contexts: all, or one application's.",
    group: "core",
    input: z.object({ application: applicationParam.optional(), ...pageInput }),
    output: listOutput("contexts"),
    annotations: READ_ONLY,
    large: true,
    run: async (args, ctx) => {
      const o = callOptions(ctx);
      let contexts: Context[];
      let more: boolean;
      if (args.application !== undefined) {
        const app = await deps.apps.resolve(args.application);
        // The node answers one application's contexts whole.
        ({ items: contexts, more } = fromOffset(
          (await admin.listContextsForApplication(app.id, o)).contexts ?? [],
          args,
        ));
      } else {
        ({ items: contexts, truncated: more } = await collectPages(
          async (page) => (await admin.listContexts(page, o)).contexts ?? [],
          (c) => c.id,
          args.offset,
          args.limit,
        ));
      }
      // A context this node left stays listed (core keeps it): each is marked, so the agent does not call there.
      const joined = await joinedHere(admin, contexts.map((c) => c.id), o);
      const page = listPage(
        "contexts",
        contexts.map((c) =>
          joined.get(c.id) === false ? { ...renderContext(c), joined: false } : renderContext(c)
        ),
        args,
        deps.config,
        more,
      );
      return jsonResult(
        [...joined.values()].includes(false)
          ? { ...page, note: [page.note, NOT_JOINED_NOTE].filter(Boolean).join(" ") }
          : page,
      );
    },
  });
}

/** `join_context` joins a context, making this node a member. */
export function joinContext(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "join_context",
    title: "Join context",
    description: "Joins a context, making this node a member.",
    group: "core",
    input: z.object({ context: contextIdParam }),
    output: output({ contextId: "string", memberPublicKey: "string" }, ["contextId"]),
    annotations: WRITE,
    run: async ({ context }, call) => {
      let joined;
      const started = Date.now();
      try {
        // core may look for the context's group for up to 30 s: progress keeps clients waiting.
        joined = await whileWaiting(call, "Joining", admin.joinContext(context, callOptions(call)));
      } catch (error) {
        if (error instanceof NodeHttpError && error.status === 500) {
          throw new Error(joinRefusal(context, Date.now() - started));
        }
        throw error;
      }
      return jsonResult({ contextId: joined.contextId, memberPublicKey: joined.memberPublicKey });
    },
  });
}

/**
 * `leave_context` this node leaves a context: its identity here goes and it stops syncing; the context stays listed.
 */
export function leaveContext(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "leave_context",
    title: "Leave context",
    description:
      "This node leaves a context: its identity here goes and it stops syncing; the context stays listed.",
    group: "core",
    input: z.object({ context: contextParam }),
    output: output({ contextId: "string", memberPublicKey: "string", note: "string" }, [
      "contextId",
    ]),
    annotations: DESTRUCTIVE,
    run: async ({ context }, call) => {
      const o = callOptions(call);
      const id = await contextArg(deps, context, o);
      return await confirmed(
        call,
        `Leave context ${id}${
          aliasNote(context, id)
        } with this node? Its identity here is dropped and it stops syncing the context (other members keep theirs); the context stays listed with the state it had, marked as not joined. join_context takes part again while this node is in the context's group.`,
        { context: id },
        async () => {
          try {
            const left = await admin.leaveContext(id, o);
            return jsonResult({
              contextId: left.contextId,
              memberPublicKey: left.memberPublicKey,
              note:
                "The context stays listed on this node (core keeps its state) but is no longer synced; calls there fail until join_context.",
            });
          } catch (error) {
            throw await notHeld(admin, error, id, o);
          }
        },
      );
    },
  });
}

/** `list_context_identities` lists a context's member identities. */
export function listContextIdentities(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "list_context_identities",
    title: "List context identities",
    description: "Lists a context's member identities.",
    group: "core",
    input: z.object({
      context: contextParam,
      owned: z.boolean().optional().describe("Only this node's own."),
      ...pageInput,
    }),
    output: listOutput("identities", { contextId: "string" }),
    annotations: READ_ONLY,
    run: async (args, call) => {
      const o = callOptions(call);
      const id = await contextArg(deps, args.context, o);
      const { identities } = await admin.getContextIdentities(
        id,
        { owned: args.owned ?? false },
        o,
      );
      const { items, more } = fromOffset(identities, args);
      return jsonResult({
        contextId: id,
        ...listPage("identities", items, args, deps.config, more),
      });
    },
  });
}

/** `delete_context` deletes a context from this node. */
export function deleteContext(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "delete_context",
    title: "Delete context",
    description: "Deletes a context from this node.",
    group: "core",
    input: z.object({ context: contextParam }),
    annotations: DESTRUCTIVE,
    run: async ({ context }, call) => {
      const o = callOptions(call);
      // The question and the answer name the id the alias points at now; the deletion uses that id, not the alias.
      const id = await contextArg(deps, context, o);
      // A group's context: core also detaches it from the group for every member, so only an admin of the group
      // may (crates/context/src/handlers/delete_context.rs: require_admin, then ContextDetached). Said before
      // the person is asked about something the node would refuse with a bare 500.
      const group = await unlessMissing(admin.contextGroup(id, o)).catch(() => null);
      if (group !== null) {
        const standing = await ownRole(admin, group, o);
        if (standing !== null && standing.role !== "Admin") {
          throw new Error(
            `Context ${id}${
              aliasNote(context, id)
            } belongs to group ${group}, and deleting it detaches it from the group for every member, which only an admin of the group may do: this node is ${
              standing.role ?? "no direct member"
            } there. To stop taking part in it on this node, use leave_context; to remove it for everyone, ask an admin of the group.`,
          );
        }
      }
      return await confirmed(
        call,
        group === null
          ? `Delete context ${id}${
            aliasNote(context, id)
          } from this node? Its state here is gone; other members keep theirs.`
          : `Delete context ${id}${
            aliasNote(context, id)
          } from this node and detach it from group ${group} for every member? Its state here is gone; the group's members no longer get it.`,
        { context: id },
        async () => textResult(await admin.deleteContext(id, o) ?? `Context ${id} was deleted.`),
      );
    },
  });
}

/** A context with its `dagHeads` byte arrays as lowercase hex. */
export function renderContext(context: Context): Record<string, unknown> {
  const heads = context.dagHeads;
  if (!Array.isArray(heads)) return { ...context };
  return { ...context, dagHeads: heads.map(toHex) };
}

function toHex(bytes: unknown): unknown {
  if (!Array.isArray(bytes)) return bytes;
  return bytes.map((b) => Number(b).toString(16).padStart(2, "0")).join("");
}

/**
 * Under this, join_context's 500 came without a search: core answers at once when it knows the group, and only
 * after looking for up to 30 s (`GROUP_LOOKUP_TIMEOUT`) when it does not.
 */
const AT_ONCE_MS = 5_000;

/**
 * Why join_context's bare 500 came, told by when it came (core crates/context/src/handlers/join_context.rs): after
 * looking for the context's group for up to 30 s (:23, :52-147), the group is not one this node knows; at once,
 * the node knows the group but its identity is not a member there, nor a device of an account that is (:171-195;
 * a restricted subgroup is not followed by inheritance).
 */
export function joinRefusal(context: string, elapsedMs: number): string {
  return elapsedMs >= AT_ONCE_MS
    ? `The node could not join context ${context} (after looking for its group for up to 30 s it answered "Internal server error"): this node is not in the group that holds it, or the id is wrong. Join the context's namespace first (join_namespace with an invitation: the node then follows its contexts by itself), or check the id with the member who shared it.`
    : `The node refused to join context ${context} at once ("Internal server error"): it knows the context's group, but this node is not a member there (a restricted subgroup admits only the members an admin adds). Ask an admin of that group to add this node's account (add_group_members), or join an open subgroup that holds it (join_open_group).`;
}
