// describe_app: an app's methods and guide, to plan with, and a handle bound to no context.

import { z } from "zod";
import { issueHandle } from "../../calls/handle.ts";
import { signatureLine } from "../../apps/abi_format.ts";
import { contextService } from "../../calls/context.ts";
import { textResult } from "../../result.ts";
import type { ToolContext } from "../context.ts";
import { applicationParam, serviceParam } from "../params.ts";
import { callOptions, defineTool, READ_ONLY, type Tool } from "../tool.ts";
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
    annotations: READ_ONLY,
    async run({ app, service }, call) {
      const picked = await pickUnit(deps, app, service, null);
      if ("refusal" in picked) return picked.refusal;
      const { unit } = picked;
      const handle = await issueHandle(deps.key, handlePayload(unit, null));
      const contexts = await appContexts(deps, unit.app, callOptions(call));
      const summary = {
        ...appSummary(unit),
        contextServices: [
          ...new Set(
            contexts.map((c) => contextService(c, unit.app.services)).filter((s) => s !== null),
          ),
        ],
        app_handle: handle,
        note: "This handle names no context: call select_app with a context to act.",
        methods: unit.manifest.methods.filter((m) => m.name !== "init").map((m) => ({
          signature: signatureLine(m),
          ...(m.doc ? { doc: m.doc } : {}),
        })),
      };
      return withGuide(textResult(summary), unit, true);
    },
  });
}
