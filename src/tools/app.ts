// The app tools (always on): describe_app to plan, select_app to act, call and call_many to reach any method.
// They go through the same loader, gate and invocation as the generated tools (apps.md §5–8).

import { z } from "zod";
import { issueHandle } from "../calls/handle.ts";
import { signatureLine } from "../apps/abi_format.ts";
import { contextService, refusalResult } from "../calls/gate.ts";
import { textResult } from "../errors.ts";
import type { CheckCache } from "../calls/invoke.ts";
import { defineTool, type Tool } from "./tool.ts";
import {
  appContexts,
  appSummary,
  type AppToolDeps,
  handlePayload,
  pickUnit,
  selectApp,
  withGuide,
} from "./app_select.ts";
import { APP, CALL, callOne, CONTEXT, contextKey, itemResult, SERVICE } from "./app_call.ts";
import { eventTools } from "./events.ts";

export type { AppToolDeps } from "./app_select.ts";

/** describe_app, select_app, call, call_many and wait_for_events. */
export function appTools(deps: AppToolDeps): Tool[] {
  return [
    defineTool({
      name: "describe_app",
      title: "Describe app",
      description:
        "Shows an app's methods (signatures, docs) and guide, with a handle bound to no context: plan with it, act with select_app.",
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
    }),
    defineTool({
      name: "select_app",
      title: "Select app",
      description:
        "Selects an app and a context to work in: returns the app_handle for every call, the app's tools, and its guide once.",
      group: "app",
      input: z.object({
        app: APP,
        context: CONTEXT.optional(),
        service: SERVICE.optional(),
        verbose: z.boolean().optional().describe("Also list every method's signature."),
        watch: z.boolean().optional().describe("false: stop watching events."),
      }),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      async run({ app, context, service, verbose, watch }, ctx) {
        return await selectApp(
          deps,
          { app, context, service, verbose: verbose ?? false, watch: watch ?? true },
          ctx,
        );
      },
    }),
    defineTool({
      name: "call",
      title: "Call an app method",
      description:
        "Runs one method of an installed app: pass app_handle (or app + context) and the method's args by name.",
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
        "Runs 1–32 calls like `call`: concurrently across contexts, in order within one. Returns {ok, result | error} per call.",
      group: "app",
      input: z.object({ calls: z.array(CALL).min(1).max(32).describe("1 to 32 calls.") }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
      async run({ calls }, ctx) {
        const results = new Array<unknown>(calls.length);
        const checks: CheckCache = new Map(); // each app is checked once for the whole batch
        const groups = new Map<string, number[]>();
        calls.forEach((call, index) => {
          const key = contextKey(call);
          groups.set(key, [...(groups.get(key) ?? []), index]);
        });
        await Promise.all([...groups.values()].map(async (indices) => {
          for (const index of indices) {
            results[index] = itemResult(await callOne(deps, calls[index], ctx, checks));
          }
        }));
        return textResult({ results });
      },
    }),
    ...eventTools(deps),
  ];
}
