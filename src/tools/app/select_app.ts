// select_app: the app_handle bound to a context, the app's tool names, notes, and the guide once per process. The
// context it binds is watched from then on, unless the agent says not to.

import { maybeContextArg } from "../context_arg.ts";
import { z } from "zod";
import { issueHandle } from "../../calls/handle.ts";
import { signatureLine } from "../../apps/abi_format.ts";
import { contextService, unknownContext } from "../../calls/context.ts";
import { packageOrId } from "../../apps/resolve.ts";
import type { CatalogUnit } from "../../apps/catalog.ts";
import { errorResult, jsonResult, type ToolResult } from "../../answer/result.ts";
import { fitItems } from "../../answer/budget.ts";
import { itemsBudget } from "../list.ts";
import type { ToolDeps } from "../deps.ts";
import { applicationParam, contextParam, serviceParam } from "../params.ts";
import { callOptions, defineTool, output, READ_ONLY, type Tool, type ToolCall } from "../tool.ts";
import { appContexts, appSummary, handlePayload, pickUnit, withGuide } from "./unit.ts";
import { watchFor } from "./watch.ts";

/** select_app. */
export function selectApp(deps: ToolDeps): Tool {
  return defineTool({
    name: "select_app",
    title: "Select app",
    description:
      "Selects an app and a context to work in: returns the app_handle for every call, the app's deps, and its guide once.",
    group: "app",
    input: z.object({
      app: applicationParam,
      context: contextParam.optional(),
      service: serviceParam.optional(),
      verbose: z.boolean().optional().describe("Also list every method's signature."),
      watch: z.boolean().optional().describe("false: stop watching events."),
    }),
    output: output(
      { app_handle: "string", context: "object?", tools: "array", notes: "array" },
      ["app_handle"],
    ),
    annotations: READ_ONLY,
    alwaysLoad: true,
    large: true,
    async run({ app, context, service, verbose, watch }, call) {
      return await select(
        deps,
        { app, context, service, verbose: verbose ?? false, watch: watch ?? true },
        call,
      );
    },
  });
}

async function select(
  deps: ToolDeps,
  input: { app: string; context?: string; service?: string; verbose: boolean; watch: boolean },
  call: ToolCall,
): Promise<ToolResult> {
  const options = callOptions(call);
  let contextId: string | null = null;
  if (input.context) {
    contextId = await maybeContextArg(deps, input.context, options);
    if (contextId === null) return errorResult(new Error(unknownContext(input.context)));
  }
  const application = await deps.apps.resolve(input.app);
  const contexts = await appContexts(deps, application, options);
  const chosenContext = contextId === null
    ? null
    : contexts.find((c) => c.id === contextId) ?? null;
  if (contextId !== null && !chosenContext) {
    return errorResult(
      new Error(`Context ${input.context} does not run ${packageOrId(application)}.`),
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
  // The context an agent selects is the one whose events it will want: kept from now on, unless it said not to.
  let watching: string | null = null;
  if (context && input.watch) {
    watching = await watchFor(deps, context.id, unit);
    await deps.selected.emit(context.id);
  } else if (context) {
    const stopped = await deps.events.unwatch(context.id);
    watching = !stopped && deps.events.pinned(context.id)
      ? "yes: the person running mero-mcp chose this context for the channel (--channel), so it stays watched"
      : "no: its events are not kept (watch: false)";
  }
  const summary = {
    ...appSummary(unit),
    context: context ? { id: context.id, ...(context.name ? { name: context.name } : {}) } : null,
    app_handle: await issueHandle(deps.key, handlePayload(unit, context?.id ?? null)),
    ...(watching ? { watchingEvents: watching } : {}),
    ...toolList(deps, unit),
    ...(notes.length ? { notes } : {}),
    ...(input.verbose
      ? {
        methods: fitItems(
          unit.manifest.methods.filter((m) => m.name !== "init").map((m) => signatureLine(m)),
          itemsBudget(deps.config) / 2,
        ).items,
      }
      : {}),
  };
  const firstTime = unit.guide !== null && !deps.guidesShown.has(unit.guideUri);
  if (firstTime) deps.guidesShown.add(unit.guideUri);
  return withGuide(jsonResult(summary), unit, firstTime);
}

/** The unit's generated tools by name, or why there are none and what to use instead. */
function toolList(deps: ToolDeps, unit: CatalogUnit): { tools?: string[]; toolsNote: string } {
  const generated = deps.generated();
  if (generated.status !== "on") {
    return {
      toolsNote: generated.status === "over-budget"
        ? "Per-method tools are off: they would exceed the --max-tools budget. Use `call` with this app_handle."
        : generated.status === "other-node"
        ? "Per-method tools are the server's own node's; on this node use `call` (or call_many, run_script) with this app_handle."
        : "Per-method tools are off (the apps toolset is not enabled). Use `call` with this app_handle.",
    };
  }
  const names = [...generated.names].filter(([, t]) =>
    t.applicationId === unit.applicationId && t.service === unit.service
  ).map(([name]) => name);
  const shown = fitItems(names, itemsBudget(deps.config) / 4);
  const cut = shown.next_offset === undefined
    ? ""
    : ` Showing ${shown.items.length} of ${names.length}: find_methods finds the rest.`;
  return {
    tools: shown.items,
    toolsNote:
      `Call these tools with the app_handle (clients may show them with a prefix, such as mcp__mero__). \`call\` reaches the same methods.${cut}`,
  };
}
