// wait_for_events: an agent waits for what happens in a context (another agent's write, a
// person's in the app's UI, a peer node's) instead of polling a view. Events come from the process's one stream
// (src/events/hub.ts) and are decoded with the app's ABI at read time (src/apps/event_view.ts).

import { z } from "zod";
import { type CatalogUnit, unitOf } from "../apps/catalog.ts";
import { entryMatches, type EventItem, viewEntry } from "../apps/event_view.ts";
import {
  contextService,
  namedContext,
  refusalResult,
  refuse,
  resolveContext,
  unknownContext,
} from "../calls/gate.ts";
import { readUnverified } from "../calls/handle.ts";
import type { EventHub, Watch } from "../events/hub.ts";
import { MAX_BYTES_PER_CONTEXT, MAX_EVENTS_PER_CONTEXT } from "../events/log.ts";
import { errorResult, textResult, type ToolResult } from "../errors.ts";
import type { AppToolDeps } from "./app_select.ts";
import { CONTEXT, HANDLE } from "./app_call.ts";
import { defineTool, READ_ONLY, type Tool, type ToolContext } from "./tool.ts";

/** wait_for_events' default and longest wait. */
export const WAIT_DEFAULT_S = 30;
export const WAIT_MAX_S = 300;
/** How often a waiting call reports progress (when the client asked for progress). */
export const PROGRESS_EVERY_MS = 2_000;
/** The most event names one wait may filter by (checked in the call, to keep the listed schema small). */
export const MAX_EVENT_NAMES = 64;
/** The most events one result carries; `more` says when others follow. */
export const MAX_RESULT_EVENTS = 100;

/** The app a watched context runs, as the event tools attach it to the watch. */
interface WatchedApp {
  applicationId: string;
  service: string | null;
}

/** wait_for_events (watching stops with select_app `watch: false`). */
export function eventTools(deps: AppToolDeps): Tool[] {
  return [
    defineTool({
      name: "wait_for_events",
      title: "Wait for events",
      description:
        "A context's events after cursor `after`, app events decoded; waits up to timeout_s for one.",
      group: "app",
      input: z.object({
        app_handle: HANDLE.optional(),
        context: CONTEXT.optional(),
        after: z.string().optional().describe("The last result's cursor."),
        events: z.array(z.string()).optional().describe("Only these event names."),
        timeout_s: z.number().min(0).max(WAIT_MAX_S).optional().describe(
          `Default ${WAIT_DEFAULT_S}.`,
        ),
      }),
      annotations: READ_ONLY,
      async run(input, ctx) {
        return await waitForEvents(deps, input, ctx);
      },
    }),
  ];
}

/** The context an event tool is about. */
type Target = { contextId: string } | { refusal: ToolResult };

async function targetOf(
  deps: AppToolDeps,
  input: { app_handle?: string; context?: string },
  ctx: ToolContext,
): Promise<Target> {
  const call = { signal: ctx.signal, traceparent: ctx.traceparent };
  const lookupAlias = (name: string) => deps.node.admin.lookupContextAlias(name, call);
  if (input.app_handle !== undefined) {
    // As for `call`: the handle names its unit, and the gate's own checks (MAC, bound fields, a context argument
    // beside it) say which context; waiting needs no more than that.
    const peeked = readUnverified(input.app_handle);
    if (!peeked) {
      return {
        refusal: refusalResult(
          refuse(null, "The app_handle was not accepted: it is malformed; call select_app again."),
        ),
      };
    }
    const unit = unitOf(deps.catalog.current(), peeked.a, peeked.s);
    if (!unit) {
      return {
        refusal: refusalResult(
          refuse(null, "The app_handle names an app that is not installed now."),
        ),
      };
    }
    const named = await namedContext({
      unit,
      handle: input.app_handle,
      context: input.context,
      key: deps.key,
      lookupAlias,
    });
    if (!named.ok) return { refusal: refusalResult(named) };
    // A handle that passed names a context: boundContext refuses one that does not.
    return { contextId: named.contextId! };
  }
  if (input.context === undefined || input.context === "") {
    return { refusal: errorResult(new Error("Give app_handle (from select_app) or context.")) };
  }
  const contextId = await resolveContext(input.context, lookupAlias);
  if (contextId === null) return { refusal: errorResult(new Error(unknownContext(input.context))) };
  return { contextId };
}

/** The unit a watched context runs now: attached to the watch, else read from the node once. */
async function unitOfWatch(
  deps: AppToolDeps,
  watch: Watch,
  signal?: AbortSignal,
): Promise<CatalogUnit | null> {
  let app = watch.app as WatchedApp | undefined;
  if (app === undefined) {
    try {
      const context = await deps.node.admin.getContext(watch.contextId, { signal });
      const installed = deps.catalog.current().apps.find((a) => a.id === context.applicationId);
      app = {
        applicationId: context.applicationId,
        service: contextService(context, installed?.services),
      };
      watch.app = app;
    } catch {
      return null; // decoded without the ABI: payloads as the node sent them
    }
  }
  return unitOf(deps.catalog.current(), app.applicationId, app.service) ?? null;
}

/** Watches a context for an agent that showed interest (select_app); says how it went in a few words. */
export async function watchFor(
  events: EventHub,
  contextId: string,
  unit: CatalogUnit,
): Promise<string> {
  const { watch } = await events.watch(
    contextId,
    {
      applicationId: unit.applicationId,
      service: unit.service,
    } satisfies WatchedApp,
  );
  if (watch.state === "subscribed") {
    return "yes: wait_for_events returns what happens in it from now on";
  }
  if (watch.state === "refused") return `no: ${watch.problem}`;
  return `not yet: the node's event stream is not connected${
    watch.problem ? ` (${watch.problem})` : ""
  }`;
}

async function waitForEvents(
  deps: AppToolDeps,
  input: {
    app_handle?: string;
    context?: string;
    after?: string;
    events?: string[];
    timeout_s?: number;
  },
  ctx: ToolContext,
): Promise<ToolResult> {
  const hub = deps.events;
  const names = input.events ?? [];
  if (names.length > MAX_EVENT_NAMES) {
    return errorResult(new Error(`Name at most ${MAX_EVENT_NAMES} events to wait for.`));
  }
  const notes: string[] = [];
  let after = 0;
  if (input.after !== undefined) {
    const parsed = hub.cursors.parse(input.after);
    if (parsed === "invalid") {
      return errorResult(
        new Error(`"${input.after}" is not a cursor: pass the cursor of an earlier result.`),
      );
    }
    if (parsed === "foreign") {
      notes.push(
        "That cursor is from an earlier mero-mcp process: events from before this one started are not available.",
      );
    } else after = parsed;
  }
  const target = await targetOf(deps, input, ctx);
  if ("refusal" in target) return target.refusal;
  // The app to decode with is what the context runs now (select_app's check, else the node's record), not what a
  // handle names: after an AppVersionChanged the two differ until the agent selects the app again.
  const { watch, newly, evicted } = await hub.watch(target.contextId);
  if (watch.state === "refused") {
    return errorResult(
      new Error(`Events of context ${target.contextId} cannot be watched: ${watch.problem}.`),
    );
  }
  if (newly) {
    notes.push(
      "This context was not watched before: events from before this call are not available (the node keeps none).",
    );
  }
  if (evicted !== null) {
    notes.push(
      `Stopped watching context ${evicted} to make room (at most ${hub.watched().length} at once).`,
    );
  }
  if (watch.state === "pending") {
    notes.push(
      `The node's event stream is not connected${
        watch.problem ? ` (${watch.problem})` : ""
      }; events are kept once it is.`,
    );
  }
  const match = (entry: Parameters<typeof entryMatches>[0]) => entryMatches(entry, names);
  const timeoutMs = (input.timeout_s ?? WAIT_DEFAULT_S) * 1000;
  let found = hub.read(watch, after, match, MAX_RESULT_EVENTS);
  // What the read covered: events arriving later (during the awaits below) belong to the next call.
  let head = hub.head();
  let timedOut = false;
  if (found.entries.length === 0 && timeoutMs > 0) {
    const total = timeoutMs / 1000;
    await hub.wait(watch, after, match, {
      timeoutMs,
      signal: ctx.signal,
      tickMs: PROGRESS_EVERY_MS,
      tick: (elapsed) =>
        ctx.progress(
          Math.round(elapsed / 1000),
          `waiting for events in ${target.contextId}`,
          total,
        ),
    });
    found = hub.read(watch, after, match, MAX_RESULT_EVENTS);
    head = hub.head();
    timedOut = found.entries.length === 0 && !ctx.signal.aborted;
  }
  if (!hub.get(target.contextId)) notes.push("The context stopped being watched during the wait.");
  if (found.lost) {
    notes.push(
      `Some events ${
        input.after === undefined ? "since watching began" : "after your cursor"
      } were dropped: mero-mcp keeps the last ${MAX_EVENTS_PER_CONTEXT} per context (${
        MAX_BYTES_PER_CONTEXT / 1024
      } KiB). Re-read the state you depend on.`,
    );
  }
  if (found.entries.some((e) => e.type === "Gap")) {
    notes.push("A gap means events may have been missed there: re-read the state you depend on.");
  }
  const unit = await unitOfWatch(deps, watch, ctx.signal);
  const items: EventItem[] = found.entries.flatMap((entry) =>
    viewEntry(entry, hub.cursors.format(entry.seq), unit?.manifest ?? null, names)
  );
  const last = found.more ? found.entries[found.entries.length - 1].seq : Math.max(after, head);
  return textResult({
    context: target.contextId,
    events: items,
    cursor: hub.cursors.format(last),
    ...(found.more ? { more: true } : {}),
    ...(timedOut ? { timedOut: true } : {}),
    ...(notes.length ? { notes } : {}),
  });
}

/** A watched context's events as a resource: `calimero://contexts/<id>/events`. */
export const EVENTS_TEMPLATE = "calimero://contexts/{contextId}/events";

/** The events resource URI of a context. */
export function eventsUri(contextId: string): string {
  return `calimero://contexts/${contextId}/events`;
}

/** The context an events resource URI names, or null for another URI. */
export function eventsUriContext(uri: string): string | null {
  const m = /^calimero:\/\/contexts\/([1-9A-HJ-NP-Za-km-z]{32,44})\/events$/.exec(uri);
  return m ? m[1] : null;
}

/** What the server needs to serve the events resources. */
export interface EventResources {
  /** One resource per watched context. */
  list(): { uri: string; name: string; title: string }[];
  /** The events kept for the URI's context (watching it first when needed) as JSON text; null for another URI. */
  read(uri: string): Promise<string | null>;
  /** Watches the URI's context (a client subscribed to it); false for another URI. */
  subscribe(uri: string): Promise<boolean>;
}

/** The events resources over the hub. */
export function eventResources(deps: AppToolDeps): EventResources {
  const hub = deps.events;
  return {
    list: () =>
      hub.watched().map((id) => ({
        uri: eventsUri(id),
        name: `events-${id.slice(0, 8)}`,
        title: `Events of context ${id.slice(0, 8)}…`,
      })),
    async read(uri) {
      const contextId = eventsUriContext(uri);
      if (contextId === null) return null;
      const { watch, newly } = await hub.watch(contextId);
      const unit = await unitOfWatch(deps, watch);
      const found = hub.read(watch, 0, (e) => entryMatches(e, []), MAX_EVENTS_PER_CONTEXT);
      const head = hub.head();
      return JSON.stringify({
        context: contextId,
        events: found.entries.flatMap((e) =>
          viewEntry(e, hub.cursors.format(e.seq), unit?.manifest ?? null)
        ),
        cursor: hub.cursors.format(head),
        ...(newly ? { note: "Watched from now on: nothing from before is available." } : {}),
      });
    },
    async subscribe(uri) {
      const contextId = eventsUriContext(uri);
      if (contextId === null) return false;
      await hub.watch(contextId);
      return true;
    },
  };
}
