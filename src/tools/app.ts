// The app tools (always on): describe_app to plan, select_app to act, call and call_many to reach any method.
// They go through the same loader, gate and invocation as the generated tools (apps.md §5–8).

import { z } from "zod";
import type { Application, Context } from "../mero/types.ts";
import type { CatalogUnit } from "../catalog.ts";
import { appUnits } from "../resolve.ts";
import { issueHandle } from "../handle.ts";
import { guideBlocks, guidePointer } from "../guide.ts";
import { signatureLine } from "../abi_format.ts";
import { contextService, refusalResult, refuse, resolveContext, retryLine } from "../gate.ts";
import { invoke, type InvokeDeps, type Outcome } from "../invoke.ts";
import { errorResult, textResult, type ToolResult } from "../errors.ts";
import { defineTool, type Tool, type ToolContext } from "./tool.ts";
import type { GeneratedTools } from "./generated.ts";

/** What the app tools need beyond invocation. */
export interface AppToolDeps extends InvokeDeps {
  /** Resolves any app name; refreshes the catalog once on a miss. */
  resolve(name: string): Promise<Application>;
  generated(): GeneratedTools;
  /** Guide URIs already shown in full by select_app in this process. */
  guidesShown: Set<string>;
}

const APP = z.string().min(1).describe(
  "Application: its package (com.example.app), trailing package segment, display name, or application id.",
);
const CONTEXT = z.string().min(1).describe("A context id (base58) or a context alias.");
const SERVICE = z.string().min(1).describe("Service name, for an app bundling several services.");
const HANDLE = z.string().min(1).describe("The app_handle returned by select_app.");

const CALL = z.object({
  method: z.string().min(1).describe("The method name, as describe_app lists it."),
  args: z.record(z.string(), z.unknown()).optional().describe("The method's arguments by name."),
  app_handle: HANDLE.optional(),
  app: APP.optional(),
  context: CONTEXT.optional(),
  service: SERVICE.optional(),
});
type CallInput = z.infer<typeof CALL>;

/** describe_app, select_app, call and call_many. */
export function appTools(deps: AppToolDeps): Tool[] {
  return [
    defineTool({
      name: "describe_app",
      title: "Describe app",
      description:
        "Shows an installed app: its methods with signatures and docs, its guide, and a handle bound to no context. Use it to plan; use select_app to act.",
      group: "app",
      input: z.object({ app: APP, service: SERVICE.optional() }),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      async run({ app, service }) {
        const picked = await pickUnit(deps, app, service, null);
        if ("refusal" in picked) return picked.refusal;
        const { unit } = picked;
        const handle = await issueHandle(deps.key, handlePayload(unit, null));
        const contexts = await appContexts(deps, unit.app, {});
        const summary = {
          ...appSummary(unit),
          contextServices: [...new Set(contexts.map((c) => contextService(c, unit.app.services)))],
          app_handle: handle,
          note: "This handle names no context: call select_app with a context to act.",
          methods: unit.manifest.methods.filter((m) => m.name !== "init").map((m) => ({
            signature: signatureLine(m),
            ...(m.doc ? { doc: m.doc } : {}),
          })),
        };
        return withGuide(textResult(summary), unit, true);
      },
    }),
    defineTool({
      name: "select_app",
      title: "Select app",
      description:
        "Selects an app and a context to work in; returns the app_handle to pass on every call, the app's tool names, and its guide the first time.",
      group: "app",
      input: z.object({
        app: APP,
        context: CONTEXT.optional(),
        service: SERVICE.optional(),
        verbose: z.boolean().optional().describe("Also list every method's signature."),
      }),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      async run({ app, context, service, verbose }, ctx) {
        return await selectApp(deps, { app, context, service, verbose: verbose ?? false }, ctx);
      },
    }),
    defineTool({
      name: "call",
      title: "Call an app method",
      description:
        "Runs one method of an installed app. Pass app_handle from select_app (or app + context) and the method's args by name.",
      group: "app",
      input: CALL,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
      async run(input, ctx) {
        const outcome = await callOne(deps, input, ctx);
        return outcome.ok ? outcome.result : refusalResult(outcome);
      },
    }),
    defineTool({
      name: "call_many",
      title: "Call several app methods",
      description:
        "Runs 1–32 calls (each like `call`): concurrently across contexts, in order within one context. Returns one {ok, result | error} per call, in order.",
      group: "app",
      input: z.object({ calls: z.array(CALL).min(1).max(32).describe("The calls, 1 to 32.") }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
      async run({ calls }, ctx) {
        const results = new Array<unknown>(calls.length);
        const groups = new Map<string, number[]>();
        calls.forEach((call, index) => {
          const key = contextKey(call);
          groups.set(key, [...(groups.get(key) ?? []), index]);
        });
        await Promise.all([...groups.values()].map(async (indices) => {
          for (const index of indices) {
            results[index] = itemResult(await callOne(deps, calls[index], ctx));
          }
        }));
        return textResult({ results });
      },
    }),
  ];
}

async function selectApp(
  deps: AppToolDeps,
  input: { app: string; context?: string; service?: string; verbose: boolean },
  ctx: ToolContext,
): Promise<ToolResult> {
  const call = { signal: ctx.signal, traceparent: ctx.traceparent };
  let contextId: string | null = null;
  if (input.context) {
    contextId = await resolveContext(
      input.context,
      (n) => deps.node.admin.lookupContextAlias(n, call),
    );
    if (contextId === null) {
      return errorResult(
        new Error(
          `No context "${input.context}" exists on this node (not a context id, and no alias of that name).`,
        ),
      );
    }
  }
  const application = await deps.resolve(input.app);
  const contexts = await appContexts(deps, application, call);
  const chosenContext = contextId === null
    ? null
    : contexts.find((c) => c.id === contextId) ?? null;
  if (contextId !== null && !chosenContext) {
    return errorResult(
      new Error(`Context ${input.context} does not run ${application.package ?? application.id}.`),
    );
  }
  const picked = await pickUnit(deps, input.app, input.service, chosenContext, application);
  if ("refusal" in picked) return picked.refusal;
  const { unit } = picked;
  const notes: string[] = [];
  let context = chosenContext;
  if (!context) {
    const candidates = contexts.filter((c) =>
      contextService(c, unit.app.services) === unit.service ||
      (unit.service === null)
    );
    if (candidates.length === 1) context = candidates[0];
    else if (candidates.length === 0) {
      notes.push(
        `No context runs ${unit.package} yet: create one with create_context (it needs a namespace; create_namespace makes one), then select_app again with the context.`,
      );
    } else {
      notes.push(
        `Several contexts run ${unit.package}: call select_app again with one of them as context: ${
          candidates.map((c) => c.name ? `${c.id} (${c.name})` : c.id).join(", ")
        }.`,
      );
    }
  }
  if (context?.applicationVersion && unit.version && context.applicationVersion !== unit.version) {
    notes.push(
      `Context ${context.id} still runs version ${context.applicationVersion} while ${unit.version} is installed: its group has not upgraded yet (upgrades apply lazily on access, or through the group's upgrade).`,
    );
  }
  const generated = deps.generated();
  const toolNames = [...generated.names].filter(([, t]) =>
    t.applicationId === unit.applicationId && t.service === unit.service
  ).map(([name]) => name);
  const tools = generated.status === "on"
    ? {
      tools: toolNames,
      toolsNote:
        "Call these tools with the app_handle (clients may show them with a prefix, such as mcp__mero__). `call` reaches the same methods.",
    }
    : {
      toolsNote: generated.status === "over-budget"
        ? "Per-method tools are off: they would exceed the --max-tools budget. Use `call` with this app_handle."
        : "Per-method tools are off (the apps toolset is not enabled). Use `call` with this app_handle.",
    };
  const summary = {
    ...appSummary(unit),
    context: context ? { id: context.id, ...(context.name ? { name: context.name } : {}) } : null,
    app_handle: await issueHandle(deps.key, handlePayload(unit, context?.id ?? null)),
    ...tools,
    ...(notes.length ? { notes } : {}),
    ...(input.verbose
      ? {
        methods: unit.manifest.methods.filter((m) => m.name !== "init").map((m) =>
          signatureLine(m)
        ),
      }
      : {}),
  };
  const firstTime = unit.guide !== null && !deps.guidesShown.has(unit.guideUri);
  if (firstTime) deps.guidesShown.add(unit.guideUri);
  return withGuide(textResult(summary), unit, firstTime);
}

/** Resolves the app and its unit: the given service, the context's service, or the only one. */
async function pickUnit(
  deps: AppToolDeps,
  name: string,
  service: string | undefined,
  context: Context | null,
  resolved?: Application,
): Promise<{ unit: CatalogUnit } | { refusal: ToolResult }> {
  const app = resolved ?? await deps.resolve(name);
  const services = appUnits(app).map((u) => u.service).filter((s): s is string => s !== null);
  let wanted: string | null = service ?? (context ? contextService(context, app.services) : null);
  if (wanted === null && services.length === 1) wanted = services[0];
  if (services.length > 1 && wanted === null) {
    return {
      refusal: errorResult(
        new Error(
          `${app.package ?? app.id} has several services: ${services.join(", ")}. Pass service.`,
        ),
      ),
    };
  }
  if (wanted !== null && !services.includes(wanted)) {
    return {
      refusal: errorResult(
        new Error(
          services.length
            ? `${app.package ?? app.id} has no service "${wanted}". Its services: ${
              services.join(", ")
            }.`
            : `${app.package ?? app.id} has no services; leave service out.`,
        ),
      ),
    };
  }
  const find = () =>
    deps.catalog.current().units.find((u) => u.applicationId === app.id && u.service === wanted);
  let unit = find();
  if (!unit) {
    await deps.catalog.refresh();
    unit = find();
  }
  if (!unit) {
    const reason = deps.catalog.current().notAnswering.find((n) =>
      n.includes(app.package ?? app.id)
    );
    return {
      refusal: errorResult(
        new Error(
          `${app.package ?? app.id} cannot be used: ${reason ?? "its ABI could not be loaded"}.`,
        ),
      ),
    };
  }
  return { unit };
}

async function appContexts(
  deps: AppToolDeps,
  app: Application,
  call: { signal?: AbortSignal; traceparent?: string },
): Promise<Context[]> {
  return (await deps.node.admin.listContextsForApplication(app.id, call)).contexts ?? [];
}

function appSummary(unit: CatalogUnit) {
  return {
    applicationId: unit.applicationId,
    package: unit.package,
    name: unit.displayName,
    version: unit.version,
    signerId: unit.signerId,
    ...(unit.service ? { service: unit.service } : {}),
    guide: unit.guide ? unit.guideUri : null,
  };
}

function handlePayload(unit: CatalogUnit, contextId: string | null) {
  return {
    a: unit.applicationId,
    p: unit.package,
    v: unit.version ?? "",
    g: unit.guideHash,
    c: contextId,
    s: unit.service,
  };
}

function withGuide(result: ToolResult, unit: CatalogUnit, full: boolean): ToolResult {
  if (!unit.guide) return result;
  const blocks = full
    ? guideBlocks({
      package: unit.package,
      signerId: unit.signerId,
      uri: unit.guideUri,
      text: unit.guide,
    })
    : [guidePointer(unit.guideUri)];
  return { ...result, content: [...result.content, ...blocks as unknown as ToolResult["content"]] };
}

/** Routes one `call` input to invocation: by handle, or by app + context. */
async function callOne(deps: AppToolDeps, input: CallInput, ctx: ToolContext): Promise<Outcome> {
  const args = input.args ?? {};
  const base = { method: input.method, args, signal: ctx.signal, traceparent: ctx.traceparent };
  try {
    if (input.app_handle) {
      const peeked = peekHandle(input.app_handle);
      if (!peeked) {
        return refuse(
          null,
          "The app_handle was not accepted: it is malformed; call select_app again.",
        );
      }
      return await invoke(deps, {
        ...base,
        applicationId: peeked.a,
        service: peeked.s,
        handle: input.app_handle,
        context: input.context,
      });
    }
    if (!input.app) {
      return refuse(null, "call needs an app_handle (from select_app), or app and context.");
    }
    const call = { signal: ctx.signal, traceparent: ctx.traceparent };
    let context: Context | null = null;
    if (input.context) {
      const id = await resolveContext(
        input.context,
        (n) => deps.node.admin.lookupContextAlias(n, call),
      );
      const app = await deps.resolve(input.app);
      context = id === null
        ? null
        : (await appContexts(deps, app, call)).find((c) => c.id === id) ?? null;
    }
    const picked = await pickUnit(deps, input.app, input.service, context);
    if ("refusal" in picked) return { ok: true, result: picked.refusal };
    return await invoke(deps, {
      ...base,
      applicationId: picked.unit.applicationId,
      service: picked.unit.service,
      context: input.context,
    });
  } catch (error) {
    return { ok: true, result: errorResult(error) };
  }
}

/** The handle's payload, read without verification, only to route the call (invoke verifies it). */
function peekHandle(handle: string): { a: string; s: string | null; c: string | null } | null {
  try {
    const [payload] = handle.split(".");
    const json = new TextDecoder().decode(
      Uint8Array.from(atob(payload.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)),
    );
    const parsed = JSON.parse(json);
    if (typeof parsed?.a !== "string") return null;
    return { a: parsed.a, s: typeof parsed.s === "string" ? parsed.s : null, c: parsed.c ?? null };
  } catch {
    return null;
  }
}

/** Calls on one context run in order; this names the context a call targets, as far as can be told up front. */
function contextKey(call: CallInput): string {
  const fromHandle = call.app_handle ? peekHandle(call.app_handle)?.c : null;
  return fromHandle ?? call.context ?? `item:${call.app ?? ""}`;
}

function itemResult(
  outcome: Outcome,
): { ok: true; result: unknown } | { ok: false; error: string } {
  if (!outcome.ok) return { ok: false, error: retryLine(outcome) };
  const result = outcome.result;
  const text = result.content.map((c) => c.text).join("\n");
  if (result.isError) return { ok: false, error: text.replace(/^Error: /, "") };
  if (result.structuredContent !== undefined) return { ok: true, result: result.structuredContent };
  try {
    return { ok: true, result: JSON.parse(text) };
  } catch {
    return { ok: true, result: text };
  }
}
