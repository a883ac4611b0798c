// The core toolset (always on): the node tools (nodes.ts), then installed apps, namespaces, and
// contexts with their aliases. Every node call carries the tool call's abort signal and trace context.

import { z } from "zod";
import {
  callOptions,
  defineTool,
  DESTRUCTIVE,
  output,
  READ_ONLY,
  type Tool,
  WRITE,
} from "./tool.ts";
import { jsonResult, textResult } from "../result.ts";
import { contextIdOf } from "../calls/context.ts";
import { chooseService, packageOrId } from "../apps/resolve.ts";
import { collectPages, fromOffset, listOutput, listPage, pageInput } from "./list.ts";
import { decodeMetadata, procedures } from "../apps/guide.ts";
import type { Application, Context } from "../mero/client.ts";
import { stringifyJson } from "../mero/json.ts";
import { oneLine } from "../text.ts";
import { toWireArgs } from "../apps/values.ts";
import type { ToolContext } from "./context.ts";
import { nodeTools } from "./nodes.ts";
import {
  aliasParam,
  applicationParam,
  contextIdParam,
  contextParam,
  nonEmpty,
  serviceParam,
} from "./params.ts";

/** The core tools, in listing order. */
export function coreTools(deps: ToolContext): Tool[] {
  const admin = deps.node.admin;
  return [
    ...nodeTools(deps),
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
        return jsonResult(
          listPage("contexts", contexts.map(renderContext), args, deps.config, more),
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
        group: nonEmpty("Namespace or group id (64 hex).").optional(),
        namespace: nonEmpty("Synonym of group.").optional(),
        name: z.string().optional().describe("Context name."),
        service: serviceParam.optional(),
        args: z.looseObject({}).optional().describe("init's arguments by name."),
      }),
      output: output({ contextId: "string", memberPublicKey: "string" }, ["contextId"]),
      annotations: WRITE,
      run: async (input, ctx) => {
        const groupId = pickGroup(input.group, input.namespace);
        const app = await deps.apps.resolve(input.application);
        const service = chooseService(app, input.service ?? null);
        const params = input.args === undefined
          ? []
          : await initParams(deps, app, service, input.args);
        const created = await admin.createContext({
          applicationId: app.id,
          groupId,
          initializationParams: params,
          ...(input.service !== undefined ? { serviceName: input.service } : {}),
          ...(input.name !== undefined ? { name: input.name } : {}),
        }, callOptions(ctx));
        return jsonResult({
          contextId: created.contextId,
          memberPublicKey: created.memberPublicKey,
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
        const joined = await admin.joinContext(context, callOptions(ctx));
        return jsonResult({ contextId: joined.contextId, memberPublicKey: joined.memberPublicKey });
      },
    }),
    defineTool({
      name: "delete_context",
      title: "Delete context",
      description: "Deletes a context from this node.",
      group: "core",
      input: z.object({ context: contextParam }),
      annotations: DESTRUCTIVE,
      async confirm({ context }, ctx) {
        const o = callOptions(ctx);
        const id = await contextIdOf(context, (name) => admin.lookupContextAlias(name, o));
        const named = id === context ? "" : ` (alias "${context}")`;
        return `Delete context ${id}${named} from this node? Its state here is gone; other members keep theirs.`;
      },
      run: async ({ context }, ctx) => {
        const o = callOptions(ctx);
        const id = await contextIdOf(context, (name) => admin.lookupContextAlias(name, o));
        const answer = await admin.deleteContext(id, o);
        return textResult(answer ?? `Context ${id} was deleted.`);
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

/** Validates `args` against the ABI's `init` like a method call; the UTF-8 bytes of their wire JSON. */
async function initParams(
  deps: ToolContext,
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
