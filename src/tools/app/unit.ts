// What the app tools share about one app unit: which unit a name and service mean, the app's contexts, the summary
// and handle payload select_app and describe_app return, and the guide appended to a result.

import type { Application, CallOptions, Context } from "../../mero/mod.ts";
import { type CatalogUnit, leftOutReason, unitOf } from "../../apps/catalog.ts";
import { chooseService, packageOrId } from "../../apps/resolve.ts";
import { guideBlocks, guidePointer } from "../../apps/guide.ts";
import { contextService } from "../../calls/context.ts";
import type { HandlePayload } from "../../calls/handle.ts";
import { errorResult, type ToolResult } from "../../answer/result.ts";
import type { ToolDeps } from "../deps.ts";

/**
 * Resolves the app and its unit: the given service, the context's service, or the only one; a refusal (as a tool
 * result) when the service does not fit or the unit's ABI cannot be used.
 */
export async function pickUnit(
  deps: ToolDeps,
  name: string,
  service: string | undefined,
  context: Context | null,
  resolved?: Application,
): Promise<{ unit: CatalogUnit } | { refusal: ToolResult }> {
  const app = resolved ?? await deps.apps.resolve(name);
  let wanted: string | null;
  try {
    wanted = chooseService(
      app,
      service ?? (context ? contextService(context, app.services) : null),
    );
  } catch (error) {
    return { refusal: errorResult(error) };
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
          `${packageOrId(app)} cannot be used: ${reason ?? "its ABI could not be loaded"}.`,
        ),
      ),
    };
  }
  return { unit };
}

/** The app's contexts as the node lists them now. */
export async function appContexts(
  deps: ToolDeps,
  app: Application,
  call: CallOptions,
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
export function handlePayload(unit: CatalogUnit, contextId: string | null): HandlePayload {
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
  return { ...result, content: [...result.content, ...blocks] };
}
