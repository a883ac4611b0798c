// call and call_many helpers: routing one call by handle or by app + context to the shared invocation, and
// folding batch items into `{ ok, result | error }`.

import { z } from "zod";
import { applicationParam, contextParam, nonEmpty, serviceParam } from "./params.ts";
import type { Context } from "../mero/types.ts";
import { refuse, resolveContext, retryLine } from "../calls/gate.ts";
import { appUnits } from "../apps/resolve.ts";
import { type CheckCache, invoke, type Outcome } from "../calls/invoke.ts";
import { errorResult } from "../errors.ts";
import type { ToolContext } from "./tool.ts";
import { appContexts, type AppToolDeps, pickUnit } from "./app_select.ts";
import { readUnverified } from "../calls/handle.ts";

/** The shared parameter descriptions (tools.md: one per identifier, the same everywhere). */
export const APP = applicationParam;
export const CONTEXT = contextParam;
export const SERVICE = serviceParam;
export const HANDLE = nonEmpty("From select_app.");

/** One call: a method, its args, and either app_handle or app + context. */
export const CALL = z.object({
  method: nonEmpty("As describe_app lists it."),
  args: z.looseObject({}).optional().describe("Arguments by name."),
  app_handle: HANDLE.optional(),
  app: APP.optional(),
  context: CONTEXT.optional(),
  service: SERVICE.optional(),
});
/** A parsed `call` input. */
export type CallInput = z.infer<typeof CALL>;

/** Routes one `call` input to invocation: by handle, or by app + context. */
export async function callOne(
  deps: AppToolDeps,
  input: CallInput,
  ctx: ToolContext,
  checks?: CheckCache,
): Promise<Outcome> {
  const args = input.args ?? {};
  const base = {
    method: input.method,
    args,
    signal: ctx.signal,
    traceparent: ctx.traceparent,
    checks,
  };
  try {
    if (input.app_handle) {
      const peeked = readUnverified(input.app_handle);
      if (!peeked) {
        return refuse(
          null,
          "The app_handle was not accepted: it is malformed; call select_app again.",
        );
      }
      // A handle names its app and service; an `app` or `service` named beside it must be the same, or the
      // call could run (a destructive method, say) on an app other than the one the agent named.
      if (input.app !== undefined) {
        const named = await deps.resolve(input.app);
        if (named.id !== peeked.a) {
          return refuse(
            null,
            `The app_handle is for application ${peeked.a}, but app names "${input.app}" (${named.id}). ` +
              "Pass one of them: the handle alone, or app and context.",
          );
        }
      }
      if (input.service !== undefined && input.service !== peeked.s) {
        return refuse(
          null,
          `The app_handle is for ${
            peeked.s === null ? "an app without services" : `service "${peeked.s}"`
          }, ` +
            `but service is "${input.service}". Leave service out, or select_app that service.`,
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
    const app = await deps.resolve(input.app);
    let context: Context | null = null;
    // Only a multi-service app needs the context up front, to learn its service; otherwise the gate alone
    // resolves and checks the context (one lookup, not two).
    if (input.context && !input.service && appUnits(app).length > 1) {
      const id = await resolveContext(
        input.context,
        (n) => deps.node.admin.lookupContextAlias(n, call),
      );
      context = id === null
        ? null
        : (await appContexts(deps, app, call)).find((c) => c.id === id) ?? null;
    }
    const picked = await pickUnit(deps, input.app, input.service, context, app);
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

/** Calls on one context run in order; this names the context a call targets, as far as can be told up front. */
export function contextKey(call: CallInput): string {
  const fromHandle = call.app_handle ? readUnverified(call.app_handle)?.c : null;
  return fromHandle ?? call.context ?? `item:${call.app ?? ""}`;
}

/** One batch item: the result, or the error text (a refusal gives its retry line only). */
export function itemResult(
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
