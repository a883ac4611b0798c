// The gate: admits an app call by handle or by app + context — the handle's MAC, then each field it binds, then the
// context — and builds refusals (the app's guide, then one retry line). Nothing reaches an app without passing here.

import type { Context } from "../mero/mod.ts";
import type { CatalogUnit } from "../apps/catalog.ts";
import { type HandlePayload, verifyHandle } from "./handle.ts";
import { guideBlocks } from "../apps/guide.ts";
import type { ToolResult } from "../answer/result.ts";
import { contextService, resolveContext, unknownContext } from "./context.ts";

/** A refusal: why, and the app concerned (whose guide a full refusal carries). */
export interface Refusal {
  ok: false;
  message: string;
  unit: CatalogUnit | null;
}

/** The gate's answer. */
export type Admission = { ok: true; contextId: string } | Refusal;

/** What a call brings to the gate. */
export interface GateRequest {
  /** The unit as installed now. */
  unit: CatalogUnit;
  /** The app's contexts as the node lists them now. */
  contexts: Context[];
  handle?: string;
  /** A context id or alias, instead of (or besides) a handle. */
  context?: string;
  key: CryptoKey;
  lookupAlias(name: string): Promise<string | null>;
}

/** Runs the checks in order: handle (MAC, then each bound field), then the context. */
export async function admit(request: GateRequest): Promise<Admission> {
  const { unit } = request;
  const named = await namedContext(request);
  if (!named.ok) return named;
  const { contextId } = named;
  if (contextId === null) {
    return refuse(unit, `A call to ${unit.package} needs an app_handle (or a context).`);
  }
  const context = request.contexts.find((c) => c.id === contextId);
  if (!context) {
    return refuse(unit, `Context ${contextId} is not a context of ${unit.package} on this node.`);
  }
  const service = contextService(context, unit.app.services);
  if (unit.service !== null && service !== null && service !== unit.service) {
    return refuse(unit, `Context ${contextId} runs service "${service}", not "${unit.service}".`);
  }
  return { ok: true, contextId };
}

/**
 * The context a call names: its handle's (MAC, then each bound field against `unit`), its `context` argument (an id
 * or a live alias), or both when they agree; null when it names none. The gate's first checks, also used where a
 * context is all that is needed (wait_for_events).
 */
export async function namedContext(
  request: Omit<GateRequest, "contexts">,
): Promise<{ ok: true; contextId: string | null } | Refusal> {
  const { unit } = request;
  let contextId: string | null = null;
  if (request.handle !== undefined) {
    const checked = await verifyHandle(request.key, request.handle);
    if (!checked.ok) return refuse(unit, `The app_handle was not accepted: ${checked.reason}`);
    const bound = boundContext(unit, checked.payload);
    if (!bound.ok) return refuse(unit, bound.reason);
    contextId = bound.contextId;
  }
  if (request.context !== undefined && request.context !== "") {
    const named = await resolveContext(request.context, request.lookupAlias);
    if (named === null) return refuse(unit, unknownContext(request.context));
    if (contextId !== null && named !== contextId) {
      return refuse(unit, "The app_handle and the context argument name different contexts.");
    }
    contextId = named;
  }
  return { ok: true, contextId };
}

/**
 * Checks a verified handle's bound fields against the unit as installed (app, version and guide, service) and
 * returns the context it names, or why it does not fit. Shared by the gate and wait_for_events.
 */
export function boundContext(
  unit: CatalogUnit,
  p: HandlePayload,
): { ok: true; contextId: string } | { ok: false; reason: string } {
  if (p.a !== unit.applicationId || p.p !== unit.package) {
    return { ok: false, reason: `The app_handle was issued for another app than ${unit.package}.` };
  }
  if (p.v !== (unit.version ?? "") || p.g !== unit.guideHash) {
    return {
      ok: false,
      reason:
        `The app_handle is stale: ${unit.package} was upgraded or its guide changed since it was issued.`,
    };
  }
  if (p.s !== unit.service) {
    return {
      ok: false,
      reason: `The app_handle was issued for another service of ${unit.package}.`,
    };
  }
  if (p.c === null) {
    return {
      ok: false,
      reason:
        "The app_handle names no context (it came from describe_app or select_app without a context).",
    };
  }
  return { ok: true, contextId: p.c };
}

/** The refusal of a handle that is not even well-formed (nothing in it can be read). */
export function refuseMalformedHandle(): Refusal {
  return refuse(null, "The app_handle was not accepted: it is malformed; call select_app again.");
}

/** A refusal concerning `unit` (null when there is no app to name). */
export function refuse(unit: CatalogUnit | null, message: string): Refusal {
  return { ok: false, message, unit };
}

/** The one line that tells the agent how to get going again. */
export function retryLine(refusal: Refusal): string {
  if (!refusal.unit) return `${refusal.message} Call list_applications to see what is installed.`;
  const service = refusal.unit.service ? ` and service "${refusal.unit.service}"` : "";
  return `${refusal.message} Call select_app with app "${refusal.unit.package}"${service} (and a context), then retry with the app_handle it returns.`;
}

/** The most of a guide a refusal carries. */
export const REFUSAL_GUIDE_EXCERPT = 4_000;

/** A refusal as a tool result: the app's guide blocks, then the retry line; `isError` set. */
export function refusalResult(refusal: Refusal): ToolResult {
  const content: ToolResult["content"] = [];
  const unit = refusal.unit;
  if (unit?.guide) {
    // A refusal carries the start of the guide, not all of it: every mistaken call would otherwise cost the
    // agent the whole guide again (3.3 MB a refusal was seen); the resource holds the rest.
    const text = unit.guide.length <= REFUSAL_GUIDE_EXCERPT
      ? unit.guide
      : `${
        unit.guide.slice(0, REFUSAL_GUIDE_EXCERPT)
      }\n\n[…the rest of the guide is the resource ${unit.guideUri}.]`;
    content.push(
      ...guideBlocks({
        package: unit.package,
        signerId: unit.signerId,
        uri: unit.guideUri,
        text,
      }),
    );
  }
  content.push({ type: "text", text: `Error: ${retryLine(refusal)}` });
  return { content, isError: true };
}
