// describe_app: an app's methods and guide, to plan with, and a handle bound to no context.

import { z } from "zod";
import { issueHandle } from "../../calls/handle.ts";
import { signatureLine } from "../../apps/abi_format.ts";
import { contextService } from "../../calls/context.ts";
import { jsonResult } from "../../result.ts";
import { fitItems } from "../../budget.ts";
import { itemsBudget } from "../list.ts";
import type { ToolContext } from "../context.ts";
import { applicationParam, serviceParam } from "../params.ts";
import { callOptions, defineTool, output, READ_ONLY, type Tool } from "../tool.ts";
import { appContexts, appSummary, handlePayload, pickUnit, withGuide } from "./unit.ts";

/** describe_app. */
export function describeApp(deps: ToolContext): Tool {
  return defineTool({
    name: "describe_app",
    title: "Describe app",
    description:
      "Shows an app's methods (signatures, docs) and guide, with a handle bound to no context: plan with it, act with select_app.",
    group: "app",
    input: z.object({ app: applicationParam, service: serviceParam.optional() }),
    output: output({ app_handle: "string", methods: "array", guide: "string?" }, ["app_handle"]),
    annotations: READ_ONLY,
    alwaysLoad: true,
    large: true,
    async run({ app, service }, call) {
      const picked = await pickUnit(deps, app, service, null);
      if ("refusal" in picked) return picked.refusal;
      const { unit } = picked;
      const handle = await issueHandle(deps.key, handlePayload(unit, null));
      const contexts = await appContexts(deps, unit.app, callOptions(call));
      const all = unit.manifest.methods.filter((m) => m.name !== "init").map((m) => ({
        signature: signatureLine(m),
        ...(m.doc ? { doc: m.doc } : {}),
      }));
      // The guide comes with it: the methods get what the budget leaves.
      const methods = fitItems(all, itemsBudget(deps.config) - (unit.guide?.length ?? 0));
      const summary = {
        ...appSummary(unit),
        contextServices: [
          ...new Set(
            contexts.map((c) => contextService(c, unit.app.services)).filter((s) => s !== null),
          ),
        ],
        app_handle: handle,
        note: "This handle names no context: call select_app with a context to act.",
        methods: methods.items,
        ...(methods.next_offset !== undefined
          ? {
            methodsNote:
              `Showing ${methods.next_offset} of ${all.length} methods: find_methods searches them all.`,
          }
          : {}),
      };
      return withGuide(jsonResult(summary), unit, true);
    },
  });
}
