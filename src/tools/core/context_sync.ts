// A context's sync with its peers and the app version it runs: its sync state, a resync (which may discard
// unsynced writes, so it is forced and asked), and moving it to another version of its app.

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
  WRITE,
} from "../tool.ts";
import { jsonResult } from "../../answer/result.ts";
import { aliasNote } from "../../calls/context.ts";
import { explainBare500 } from "../../answer/errors.ts";
import { appName } from "../../apps/resolve.ts";
import { oneLine } from "../../lib/text.ts";
import type { ToolDeps } from "../deps.ts";
import { ownIdentity } from "../membership.ts";
import { applicationParam, contextParam } from "../params.ts";
import { notHeld } from "./not_held.ts";

/** `sync_context` syncs a context now (all: none given) and shows whether its state is here. */
export function syncContext(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "sync_context",
    title: "Sync context",
    description: "Syncs a context now (all: none given) and shows whether its state is here.",
    group: "core",
    input: z.object({
      context: contextParam.optional(),
      trigger: z.boolean().optional().describe("false: only read the state."),
    }),
    output: output({ contextId: "string?", isInitialized: "boolean", syncState: "string" }),
    // Read-only mode: it only reads the state (never asks the node to sync), so it reads.
    annotations: deps.config.readOnly ? READ_ONLY : { ...WRITE, idempotentHint: true },
    run: async ({ context, trigger: asked }, call) => {
      const trigger = deps.config.readOnly ? false : asked;
      const o = callOptions(call);
      const id = context === undefined ? null : await contextArg(deps, context, o);
      if (trigger !== false) {
        try {
          await admin.syncContext(id, o);
        } catch (error) {
          throw id === null ? error : await notHeld(admin, error, id, o);
        }
      }
      if (id === null && trigger === false) {
        throw new Error("Pass a context to read its sync state.");
      }
      if (id === null) {
        return jsonResult({
          contextId: null,
          syncState: "requested",
          note: "The node syncs every context it holds now; pass a context to see its state.",
        });
      }
      const status = await deps.node.rpc.syncStatus(id, o);
      return jsonResult({
        contextId: id,
        ...status,
        note: syncNote(status),
      });
    },
  });
}

/**
 * `update_context_application` runs a context on another version of its app (same signer) from now on.
 */
export function updateContextApplication(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "update_context_application",
    title: "Move context to another app",
    description: "Runs a context on another version of its app (same signer) from now on.",
    group: "core",
    input: z.object({ context: contextParam, application: applicationParam }),
    output: output({ contextId: "string", applicationId: "string" }, ["contextId"]),
    annotations: DESTRUCTIVE,
    run: async ({ context, application }, call) => {
      const o = callOptions(call);
      const id = await contextArg(deps, context, o);
      // Core runs the update as one of this node's identities in the context.
      const [target, executor] = await Promise.all([
        deps.apps.resolve(application),
        ownIdentity(admin, id, o).catch(() => null),
      ]);
      if (executor === null) {
        throw new Error(
          `This node has no identity in context ${id}, so it cannot move it: join it first (join_context), or do it from a member's node.`,
        );
      }
      return await confirmed(
        call,
        `Run context ${id}${aliasNote(context, id)} on ${
          appName(target)
        } (application ${target.id}) from now on? Its state may be migrated by the new version; going back is another move.`,
        { context: id, application: target.id },
        async () => {
          try {
            await admin.updateContextApplication(id, target.id, executor, o);
          } catch (error) {
            throw explainBare500(
              error,
              `The node refused to move context ${id} to application ${target.id} without saying why (HTTP 500). In core the app must be installed here and signed by the same signer as the one the context runs (an unsigned app never replaces a signed one), and this node must be a member permitted in the context.`,
            );
          }
          // An app_handle for the old app no longer admits calls here: the gate reads the context's app anew.
          return jsonResult({ contextId: id, applicationId: target.id });
        },
      );
    },
  });
}

/**
 * `resync_context` rebuilds a group context's state here from a peer's snapshot; force discards unsynced local writes.
 */
export function resyncContext(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "resync_context",
    title: "Resync context",
    description:
      "Rebuilds a group context's state here from a peer's snapshot; force discards unsynced local writes.",
    group: "core",
    input: z.object({
      context: contextParam,
      force: z.boolean().optional().describe("Also when local writes would be discarded."),
    }),
    output: output({ contextId: "string", resyncStarted: "boolean" }, ["contextId"]),
    asks: "when forced",
    annotations: DESTRUCTIVE,
    run: async ({ context, force }, call) => {
      const o = callOptions(call);
      const id = await contextArg(deps, context, o);
      const act = async () => {
        try {
          const started = await admin.resyncContext(id, force === true, o);
          return jsonResult({ contextId: id, resyncStarted: started.resyncStarted });
        } catch (error) {
          throw explainBare500(
            error,
            `The node refused to resync context ${id} without saying why (HTTP 500). In core a resync is for a context in a group only, and ${
              force
                ? "it may not be held here"
                : "it is refused while this node holds writes a resync would discard: pass force to discard them"
            }; sync_context shows its state.`,
          );
        }
      };
      // Without force the node itself refuses to discard anything: only a forced resync is asked about.
      if (!force) return await act();
      return await confirmed(
        call,
        `Resync context ${id}${
          aliasNote(context, id)
        } from a peer's snapshot, discarding the writes this node has not synced? They cannot be recovered.`,
        { context: id, force: true },
        act,
      );
    },
  });
}

/** What a sync state means for the agent's next step. */
export function syncNote(
  status: { isInitialized: boolean; syncState: string; lastError?: string },
): string {
  if (status.isInitialized && status.syncState === "idle") return "Synced: its state is here.";
  if (status.isInitialized) {
    return `Its state is here; the node is catching up (${status.syncState}).`;
  }
  const why = status.lastError ? ` (last error: ${oneLine(status.lastError, 200)})` : "";
  return status.syncState === "waitingForPeers"
    ? `Not synced yet: the node waits for another member to sync from${why}. Calls answer Uninitialized until then; another member node must be online.`
    : `Not synced yet (${status.syncState})${why}: calls answer Uninitialized until it is; call sync_context again in a few seconds.`;
}
