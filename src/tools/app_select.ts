// select_app and describe_app helpers: resolving the app and its unit, choosing the context, issuing the
// handle, and showing the guide (in full the first time per process, apps.md §8).

import type { Application, Context } from "../mero/types.ts";
import { type CatalogUnit, leftOutReason, unitOf } from "../apps/catalog.ts";
import { appUnits } from "../apps/resolve.ts";
import { issueHandle } from "../calls/handle.ts";
import { guideBlocks, guidePointer } from "../apps/guide.ts";
import { signatureLine } from "../apps/abi_format.ts";
import { contextService, resolveContext, unknownContext } from "../calls/gate.ts";
import { watchFor } from "./events.ts";
import type { InvokeDeps } from "../calls/invoke.ts";
import { errorResult, textResult, type ToolResult } from "../errors.ts";
import type { ToolContext } from "./tool.ts";
import type { GeneratedTools } from "./generated.ts";
import type { EventHub } from "../events/hub.ts";

/** What the app tools need beyond invocation. */
export interface AppToolDeps extends InvokeDeps {
  /** Resolves any app name; refreshes the catalog once on a miss. */
  resolve(name: string): Promise<Application>;
  generated(): GeneratedTools;
  /** Guide URIs already shown in full by select_app in this process. */
  guidesShown: Set<string>;
  /** The process's event stream: select_app watches the context it binds. */
  events: EventHub;
}

/** select_app: the handle bound to a context, the app's tool names, notes, and the guide once. */
export async function selectApp(
  deps: AppToolDeps,
  input: { app: string; context?: string; service?: string; verbose: boolean; watch: boolean },
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
        new Error(unknownContext(input.context)),
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
  // The context an agent selects is the one whose events it will want: kept from now on, unless it said not to.
  let watching: string | null = null;
  if (context && input.watch) watching = await watchFor(deps.events, context.id, unit);
  else if (context) {
    await deps.events.unwatch(context.id);
    watching = "no: its events are not kept (watch: false)";
  }
  const summary = {
    ...appSummary(unit),
    context: context ? { id: context.id, ...(context.name ? { name: context.name } : {}) } : null,
    app_handle: await issueHandle(deps.key, handlePayload(unit, context?.id ?? null)),
    ...(watching ? { watchingEvents: watching } : {}),
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
export async function pickUnit(
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
  const find = () => unitOf(deps.catalog.current(), app.id, wanted);
  let unit = find();
  if (!unit) {
    await deps.catalog.refresh();
    unit = find();
  }
  if (!unit) {
    const reason = leftOutReason(deps.catalog.current(), app);
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

/** The app's contexts as the node lists them now. */
export async function appContexts(
  deps: AppToolDeps,
  app: Application,
  call: { signal?: AbortSignal; traceparent?: string },
): Promise<Context[]> {
  return (await deps.node.admin.listContextsForApplication(app.id, call)).contexts ?? [];
}

/** The facts every app summary starts with. */
export function appSummary(unit: CatalogUnit) {
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

/** The handle payload for a unit as installed now, bound to a context or to none. */
export function handlePayload(unit: CatalogUnit, contextId: string | null) {
  return {
    a: unit.applicationId,
    p: unit.package,
    v: unit.version ?? "",
    g: unit.guideHash,
    c: contextId,
    s: unit.service,
  };
}

/** Appends the guide (full) or a pointer to it. */
export function withGuide(result: ToolResult, unit: CatalogUnit, full: boolean): ToolResult {
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
