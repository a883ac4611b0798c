// The core toolset (always on): the node tools (nodes.ts), then installed apps, namespaces, and
// contexts with their aliases. Every node call carries the tool call's abort signal and trace context.

import { contextArg } from "./context_arg.ts";
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
} from "./tool.ts";
import { jsonResult, textResult } from "../answer/result.ts";
import { aliasNote } from "../calls/context.ts";
import { explainBare500 } from "../answer/errors.ts";
import { appName, chooseService, packageOrId } from "../apps/resolve.ts";
import { collectPages, fromOffset, listOutput, listPage, pageInput } from "./list.ts";
import { decodeMetadata, procedures } from "../apps/guide.ts";
import {
  type Application,
  type CallOptions,
  type Context,
  NodeHttpError,
  unlessMissing,
} from "../mero/mod.ts";
import { stringifyJson } from "../lib/json.ts";
import { oneLine } from "../lib/text.ts";
import { toWireArgs } from "../apps/values.ts";
import type { ToolDeps } from "./deps.ts";
import { nodeTools } from "./nodes.ts";
import { clientKeyTool } from "./client_key.ts";
import { CAPABILITIES } from "./capabilities.ts";
import {
  groupMembers,
  groupStanding,
  joinedHere,
  memberRow,
  NOT_JOINED_NOTE,
  ownAccount,
  ownIdentity,
  standingProblem,
} from "./membership.ts";
import {
  aliasParam,
  applicationParam,
  contextIdParam,
  contextParam,
  nonEmpty,
  serviceParam,
} from "./params.ts";

/** The core tools, in listing order. */
export function coreTools(deps: ToolDeps): Tool[] {
  const admin = deps.node.admin;
  return [
    ...nodeTools(deps),
    clientKeyTool(deps),
    defineTool({
      name: "list_applications",
      title: "List applications",
      description:
        "Lists installed apps: id, package, version, signer, metadata, services, procedures.",
      group: "core",
      input: z.object({ ...pageInput }),
      output: listOutput("apps", { notAnswering: "array" }),
      annotations: READ_ONLY,
      alwaysLoad: true,
      large: true,
      run: async (args, ctx) => {
        const { items, more } = fromOffset(await deps.apps.list(callOptions(ctx)), args);
        return jsonResult({
          ...listPage("apps", items.map(summarizeApp), args, deps.config, more),
          notAnswering: deps.notAnswering(),
        });
      },
    }),
    defineTool({
      name: "list_namespaces",
      title: "List namespaces",
      description: "Lists the namespaces this node belongs to.",
      group: "core",
      input: z.object({ ...pageInput }),
      output: listOutput("namespaces"),
      annotations: READ_ONLY,
      large: true,
      run: async (args, ctx) => {
        const o = callOptions(ctx);
        const { items, truncated } = await collectPages(
          (page) => admin.listNamespaces(page, o),
          (ns) => String(ns.namespaceId ?? stringifyJson(ns)),
          args.offset,
          args.limit,
        );
        return jsonResult(listPage("namespaces", items, args, deps.config, truncated));
      },
    }),
    defineTool({
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
    }),
    defineTool({
      name: "create_context",
      title: "Create context",
      description: "Creates a context of an app in a namespace or group; `args` go to init.",
      group: "core",
      input: z.object({
        application: applicationParam,
        group: nonEmpty("Namespace or group id (64 hex); default: the app's one namespace.")
          .optional(),
        namespace: nonEmpty("Synonym of group.").optional(),
        name: z.string().optional().describe("Context name."),
        service: serviceParam.optional(),
        args: z.looseObject({}).optional().describe("init's arguments by name."),
      }),
      output: output(
        { contextId: "string", memberPublicKey: "string", applicationId: "string", note: "string" },
        ["contextId"],
      ),
      annotations: WRITE,
      run: async (input, ctx) => {
        const o = callOptions(ctx);
        const asked = await deps.apps.resolve(input.application);
        const given = input.group === undefined && input.namespace === undefined
          ? null
          : pickGroup(input.group, input.namespace);
        // No group given: the app's one namespace on this node, when there is exactly one (a required argument
        // the server can infer is one an agent gets wrong for nothing).
        const inferred = given === null ? await onlyNamespaceOf(admin, asked, o) : null;
        const groupId = given ?? inferred!;
        // core runs the group's app whatever is asked (create_context.rs:236-243): find it first, so the args are
        // checked against the init that will really run and a different app is said, not silently swapped.
        const { app, note } = await appOfGroup(deps, groupId, asked, o);
        const service = chooseService(app, input.service ?? null);
        const params = input.args === undefined
          ? []
          : await initParams(deps, app, service, input.args);
        let created;
        try {
          created = await admin.createContext({
            applicationId: app.id,
            groupId,
            initializationParams: params,
            ...(input.service !== undefined ? { serviceName: input.service } : {}),
            ...(input.name !== undefined ? { name: input.name } : {}),
          }, o);
        } catch (error) {
          throw await createProblem(deps, error, groupId, o);
        }
        const made = await unlessMissing(admin.getContext(created.contextId, o)).catch(() => null);
        const runs = made?.applicationId ?? app.id;
        return jsonResult({
          contextId: created.contextId,
          memberPublicKey: created.memberPublicKey,
          applicationId: runs,
          ...(runs !== app.id
            ? { note: `The node created a context of application ${runs}, not ${app.id}.` }
            : note || inferred
            ? {
              note: [
                inferred
                  ? `Created in namespace ${inferred}, the app's only one on this node.`
                  : "",
                note ?? "",
              ].filter(Boolean).join(" "),
            }
            : {}),
        });
      },
    }),
    defineTool({
      name: "join_context",
      title: "Join context",
      description: "Joins a context, making this node a member.",
      group: "core",
      input: z.object({ context: contextIdParam }),
      output: output({ contextId: "string", memberPublicKey: "string" }, ["contextId"]),
      annotations: WRITE,
      run: async ({ context }, ctx) => {
        let joined;
        const started = Date.now();
        try {
          // core may look for the context's group for up to 30 s: progress keeps clients waiting.
          joined = await whileWaiting(ctx, "Joining", admin.joinContext(context, callOptions(ctx)));
        } catch (error) {
          if (error instanceof NodeHttpError && error.status === 500) {
            throw new Error(joinRefusal(context, Date.now() - started));
          }
          throw error;
        }
        return jsonResult({ contextId: joined.contextId, memberPublicKey: joined.memberPublicKey });
      },
    }),
    defineTool({
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
      run: async ({ context }, ctx) => {
        const o = callOptions(ctx);
        const id = await contextArg(deps, context, o);
        return await confirmed(
          ctx,
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
    }),
    defineTool({
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
      run: async (args, ctx) => {
        const o = callOptions(ctx);
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
    }),
    defineTool({
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
      run: async ({ context, trigger: asked }, ctx) => {
        const trigger = deps.config.readOnly ? false : asked;
        const o = callOptions(ctx);
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
    }),
    defineTool({
      name: "update_context_application",
      title: "Move context to another app",
      description: "Runs a context on another version of its app (same signer) from now on.",
      group: "core",
      input: z.object({ context: contextParam, application: applicationParam }),
      output: output({ contextId: "string", applicationId: "string" }, ["contextId"]),
      annotations: DESTRUCTIVE,
      run: async ({ context, application }, ctx) => {
        const o = callOptions(ctx);
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
          ctx,
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
    }),
    defineTool({
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
      annotations: DESTRUCTIVE,
      run: async ({ context, force }, ctx) => {
        const o = callOptions(ctx);
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
          ctx,
          `Resync context ${id}${
            aliasNote(context, id)
          } from a peer's snapshot, discarding the writes this node has not synced? They cannot be recovered.`,
          { context: id, force: true },
          act,
        );
      },
    }),
    defineTool({
      name: "delete_context",
      title: "Delete context",
      description: "Deletes a context from this node.",
      group: "core",
      input: z.object({ context: contextParam }),
      annotations: DESTRUCTIVE,
      run: async ({ context }, ctx) => {
        const o = callOptions(ctx);
        // The question and the answer name the id the alias points at now; the deletion uses that id, not the alias.
        const id = await contextArg(deps, context, o);
        return await confirmed(
          ctx,
          `Delete context ${id}${
            aliasNote(context, id)
          } from this node? Its state here is gone; other members keep theirs.`,
          { context: id },
          async () => textResult(await admin.deleteContext(id, o) ?? `Context ${id} was deleted.`),
        );
      },
    }),
    defineTool({
      name: "create_alias",
      title: "Create context alias",
      description: "Names a context with an alias on this node.",
      group: "core",
      input: z.object({
        alias: aliasParam,
        contextId: contextIdParam,
      }),
      annotations: WRITE,
      run: async ({ alias, contextId }, ctx) => {
        await admin.createContextAlias(alias, contextId, callOptions(ctx));
        return textResult(`The alias "${alias}" now points at context ${contextId}.`);
      },
    }),
    defineTool({
      name: "lookup_alias",
      title: "Look up context alias",
      description: "Finds the context an alias points at.",
      group: "core",
      input: z.object({ name: aliasParam }),
      output: output({ alias: "string", contextId: "string?", note: "string" }, ["contextId"]),
      annotations: READ_ONLY,
      run: async ({ name }, ctx) => {
        const contextId = await admin.lookupContextAlias(name, callOptions(ctx));
        if (contextId === null) {
          return jsonResult({
            alias: name,
            contextId: null,
            note: `No alias "${name}" exists on this node.`,
          });
        }
        return jsonResult({ alias: name, contextId });
      },
    }),
    defineTool({
      name: "list_aliases",
      title: "List context aliases",
      description: "Lists this node's context aliases and the contexts they name.",
      group: "core",
      input: z.object({ ...pageInput }),
      output: listOutput("aliases"),
      annotations: READ_ONLY,
      run: async (args, ctx) => {
        const all = Object.entries(await admin.listContextAliases(callOptions(ctx)))
          .map(([alias, contextId]) => ({ alias, contextId }));
        const { items, more } = fromOffset(all, args);
        return jsonResult(listPage("aliases", items, args, deps.config, more));
      },
    }),
    defineTool({
      name: "delete_alias",
      title: "Delete context alias",
      description: "Removes an alias; its context stays. Removing an absent alias succeeds.",
      group: "core",
      input: z.object({ name: aliasParam }),
      // It drops a name, not state: create_alias puts it back.
      annotations: { ...WRITE, idempotentHint: true },
      run: async ({ name }, ctx) => {
        const o = callOptions(ctx);
        const was = await admin.lookupContextAlias(name, o);
        await admin.deleteContextAlias(name, o);
        return textResult(
          was === null
            ? `No alias "${name}" existed; nothing to remove.`
            : `The alias "${name}" is removed; context ${was} stays.`,
        );
      },
    }),
  ];
}

/** One app as `list_applications` shows it: record facts, display metadata without the guide, procedures. */
export function summarizeApp(app: Application): Record<string, unknown> {
  const metadata = decodeMetadata(app.metadata);
  const guide = metadata?.guide;
  let display: unknown = null;
  if (metadata !== null) {
    const { guide: _guide, ...rest } = metadata;
    display = authorText(rest, 0);
  }
  return {
    id: app.id,
    package: app.package ?? null,
    appVersion: app.version || null,
    signerId: app.signer_id ?? null,
    metadata: display,
    services: Object.keys(app.services ?? {}),
    procedures: typeof guide === "string"
      ? procedures(guide).slice(0, 50).map((p) => oneLine(p, 120))
      : [],
  };
}

/**
 * An app author's metadata as shown to the agent: strings one line of at most 300 characters without control
 * characters, at most 32 keys and 20 items per level, two levels deep; anything else is left out.
 */
function authorText(value: unknown, depth: number): unknown {
  if (typeof value === "string") return oneLine(value, 300);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return value;
  if (depth >= 2) return undefined;
  if (Array.isArray(value)) {
    return value.slice(0, 20).map((item) => authorText(item, depth + 1)).filter((v) =>
      v !== undefined
    );
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).slice(0, 32)
      .map(([key, item]) => [oneLine(key, 60), authorText(item, depth + 1)] as const)
      .filter(([, item]) => item !== undefined);
    return Object.fromEntries(entries);
  }
  return undefined;
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

/** `group`, or its synonym `namespace`; exactly one id must come out. */
export function pickGroup(group: string | undefined, namespace: string | undefined): string {
  if (group !== undefined && namespace !== undefined && group !== namespace) {
    throw new Error(
      `group "${group}" and namespace "${namespace}" differ; pass one of them (namespace is a synonym of group).`,
    );
  }
  const id = group ?? namespace;
  if (id === undefined) {
    throw new Error(
      "Pass group: the namespace id or group id the context belongs to (list_namespaces shows them; create_namespace makes one).",
    );
  }
  return id;
}

/**
 * The namespace of `app` on this node when there is exactly one; otherwise says which to pass (core's namespace
 * list carries each one's target app: crates/server/src/admin/handlers/namespaces/list.rs).
 */
async function onlyNamespaceOf(
  admin: ToolDeps["node"]["admin"],
  app: Application,
  o: CallOptions,
): Promise<string> {
  const namespaces = (await admin.listNamespaces({ limit: 1000 }, o))
    .filter((ns) => ns.targetApplicationId === app.id);
  if (namespaces.length === 1) return namespaces[0].namespaceId;
  throw new Error(
    namespaces.length === 0
      ? `Pass group: ${
        packageOrId(app)
      } has no namespace on this node yet (create_namespace makes one, join_namespace joins another's).`
      : `Pass group: ${packageOrId(app)} has ${namespaces.length} namespaces on this node (${
        namespaces.slice(0, 5).map((ns) =>
          ns.name ? `${ns.namespaceId} "${ns.name}"` : ns.namespaceId
        )
          .join(", ")
      }${namespaces.length > 5 ? ", …" : ""}); list_namespaces shows them.`,
  );
}

/** Validates `args` against the ABI's `init` like a method call; the UTF-8 bytes of their wire JSON. */
async function initParams(
  deps: ToolDeps,
  app: Application,
  service: string | null,
  args: Record<string, unknown>,
): Promise<number[]> {
  const manifest = await deps.apps.abi(app, service);
  const init = manifest.methods.find((m) => m.name === "init");
  if (init === undefined) {
    throw new Error(
      `Application "${
        packageOrId(app)
      }" has no init method, so it takes no args; call create_context without args.`,
    );
  }
  const wire = toWireArgs(manifest, init, args);
  if (!wire.ok) throw new Error(wire.message);
  return Array.from(new TextEncoder().encode(stringifyJson(wire.value)));
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

/**
 * The error of a context route that answered core's bare 500, explained when this node does not hold the context
 * (asked of the node itself); any other error as it was.
 */
async function notHeld(
  admin: ToolDeps["node"]["admin"],
  error: unknown,
  contextId: string,
  o: CallOptions,
): Promise<unknown> {
  if (!(error instanceof NodeHttpError) || error.status !== 500) return error;
  const held = await unlessMissing(admin.getContext(contextId, o)).catch(() => undefined);
  if (held === null) {
    return new Error(
      `This node does not hold context ${contextId} (the node answered "Internal server error"): check the id with list_contexts, or join it first.`,
    );
  }
  return error;
}

/**
 * The app a context in `groupId` will run: the group's target (core replaces any other with it). The same package
 * at another version is taken, with a note; another app is refused, naming both. When the group cannot be read,
 * the asked app is used and the creation itself says what is wrong.
 */
async function appOfGroup(
  deps: ToolDeps,
  groupId: string,
  asked: Application,
  o: CallOptions,
): Promise<{ app: Application; note: string | null }> {
  const group = await deps.node.admin.getGroup(groupId, o).catch(() => null);
  const target = group?.targetApplicationId;
  if (typeof target !== "string" || target === asked.id) return { app: asked, note: null };
  const installed = await deps.apps.resolve(target).catch(() => null);
  const named = installed ? appName(installed) : target;
  // The same package from the same signer at another version: the group's version runs (an upgrade not yet applied
  // there, say). Anything else is another app, refused by name.
  if (
    installed && installed.package !== undefined && installed.package === asked.package &&
    installed.signer_id === asked.signer_id
  ) {
    return {
      app: installed,
      note:
        `The group runs ${named} (application ${target}), so the context runs that version, not ${
          asked.version ?? asked.id
        }.`,
    };
  }
  throw new Error(
    `Group ${groupId} runs ${named}${
      installed ? ` (application ${target})` : ` (not installed on this node)`
    }, not ${
      packageOrId(asked)
    }: the node would create a context of the group's app whatever is asked. Pass that app, or a namespace of ${
      packageOrId(asked)
    } (list_namespaces shows each namespace's app; create_namespace makes one).`,
  );
}

/**
 * Why create_context failed. core answers every cause but a failed init with a bare 500 ("Internal server
 * error": crates/context/src/handlers/create_context.rs:212-258, server admin/service.rs:671-684), so the likely
 * one is asked of the node: the group, this node's membership and role there, its create_context capability.
 */
async function createProblem(
  deps: ToolDeps,
  error: unknown,
  groupId: string,
  o: CallOptions,
): Promise<unknown> {
  if (!(error instanceof NodeHttpError) || error.status !== 500) return error;
  const admin = deps.node.admin;
  const opaque = 'The node refused to create the context with a bare "Internal server error"';
  const standing = await groupStanding(admin, groupId, o).catch(() => null);
  const problem = standing === null ? null : standingProblem(standing, groupId);
  if (problem !== null) return new Error(`${opaque}: ${problem}.`);
  const [account, members] = await Promise.all([
    ownAccount(admin, o),
    groupMembers(admin, groupId, o),
  ]);
  const mine = members === null ? undefined : memberRow(members, account);
  if (members === null || (account !== null && !mine)) {
    return new Error(
      `${opaque}: this node is not a member of group ${groupId}. Join it first (join_namespace with an invitation, or join_open_group for an open subgroup).`,
    );
  }
  if (mine && mine.role !== "Admin" && account !== null) {
    const caps = await admin.getMemberCapabilities(groupId, account, o).catch(() => null);
    if (caps !== null && (caps & CAPABILITIES.create_context) === 0) {
      return new Error(
        `${opaque}: this node is ${mine.role} in group ${groupId} without the create_context capability. An admin of the group grants it (set_member_capabilities with grant ["create_context"]).`,
      );
    }
  }
  return new Error(`${opaque}; its log says why.`);
}
