// The resources the server serves, both under `calimero://` (src/answer/uris.ts): each app's guide, from the catalog, and
// each watched context's kept events, from the event hub, decoded with the ABI of the app the context runs.

import type { CatalogState } from "../apps/catalog.ts";
import { entryMatches, viewEntry } from "../apps/event_view.ts";
import { MAX_EVENTS_PER_CONTEXT } from "../events/log.ts";
import type { ToolDeps } from "../tools/deps.ts";
import { unitOfWatch } from "../tools/app/watch.ts";
import { EVENTS_ORIGIN } from "../tools/app/wait_for_events.ts";
import {
  CLIENT_TEMPLATE,
  clientUri,
  EVENTS_TEMPLATE,
  eventsUri,
  eventsUriContext,
  GUIDE_TEMPLATE,
  RESULTS_TEMPLATE,
} from "../answer/uris.ts";
import type { GuideResource } from "./surface.ts";
import type { ToolTarget } from "../apps/names.ts";
import { scriptSlugs } from "../apps/script_slugs.ts";
import { clientDeclarations, SCRIPT_PRELUDE } from "../apps/client_types.ts";

/** The resource templates `resources/templates/list` answers: guides always, events when the hub serves them. */
export function resourceTemplates(withEvents: boolean) {
  return [
    {
      uriTemplate: GUIDE_TEMPLATE,
      name: "app_guide",
      title: "App guide",
      description: "The guide an app's author wrote for agents: how to use the app's methods.",
      mimeType: "text/markdown",
    },
    {
      uriTemplate: CLIENT_TEMPLATE,
      name: "script_client",
      title: "Script client",
      description: "An app's methods and events as TypeScript declarations, for run_script.",
      mimeType: "application/typescript",
    },
    {
      uriTemplate: RESULTS_TEMPLATE,
      name: "tool_result",
      title: "Tool result",
      description:
        "A tool result too big to return whole, linked from that result: kept 10 minutes, 3 reads.",
    },
    ...(withEvents
      ? [{
        uriTemplate: EVENTS_TEMPLATE,
        name: "context_events",
        title: "Context events",
        description:
          "The events mero-mcp keeps of a context it watches (reading one starts watching it); subscribe to be told of new ones.",
        mimeType: "application/json",
      }]
      : []),
  ];
}

/** One guide resource per distinct guide URI in the catalog. */
export function guidesOf(state: CatalogState): GuideResource[] {
  const guides = new Map<string, GuideResource>();
  for (const unit of state.units) {
    if (unit.guide === null || guides.has(unit.guideUri)) continue;
    guides.set(unit.guideUri, {
      uri: unit.guideUri,
      name: `${unit.displayName} guide`,
      title: `${unit.displayName} guide`,
      text: unit.guide,
      ...(unit.icon ? { icons: [unit.icon] } : {}),
    });
  }
  return [...guides.values()];
}

/** One TypeScript client per app unit, for run_script: `calimero.<slug>` with the script prelude. */
export function clientsOf(
  state: CatalogState,
  names: ReadonlyMap<string, ToolTarget>,
): GuideResource[] {
  return [...scriptSlugs(state.units, names)].map(([slug, unit]) => ({
    uri: clientUri(slug),
    name: `${slug}.d.ts`,
    title: `${unit.displayName}: script client`,
    text: `${SCRIPT_PRELUDE}\n\n${clientDeclarations(unit.manifest, slug, unit.package)}\n`,
    mimeType: "application/typescript",
  }));
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

/** The events resources over the tools' event hub. */
export function eventResources(deps: ToolDeps): EventResources {
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
        origin: EVENTS_ORIGIN,
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
