// The composition root of the server worker, built once per process: the services first (session, handle key, ABI
// loader, catalog, event hub), then the tools over them, then the subscriptions that carry one part's changes to
// another. Server instances read it; none owns it. Parts publish changes; only this module subscribes them to each
// other, so no part calls back into a layer above it (docs/architecture.md).

import denoJson from "../../deno.json" with { type: "json" };
import type { Config } from "../config/config.ts";
import { createSurface, type Surface } from "./surface.ts";
import type { Session } from "../node/session.ts";
import { loadHandleKey } from "../calls/handle.ts";
import { readMarks } from "../apps/marks.ts";
import type { Catalog, CatalogState } from "../apps/catalog.ts";
import type { EventHub } from "../events/hub.ts";
import type { ToolDeps } from "../tools/deps.ts";
import { fixedTools } from "../tools/registry.ts";
import { createToolBuilder } from "../tools/generated.ts";
import { forgetWatchedApp } from "../tools/app/watch.ts";
import { clientsOf, type EventResources, eventResources, guidesOf } from "./resources.ts";
import { eventsUri } from "../answer/uris.ts";
import { log } from "../lib/log.ts";
import { type Channel, createChannel } from "./channel.ts";
import { appPrompts, SERVER_PROMPTS } from "./prompts.ts";
import { markEchoes, readClaims } from "../events/shared_writes.ts";
import { selectedRecorder } from "./selected_record.ts";
import { createListeners } from "../lib/listeners.ts";
import { nodeServices } from "./node_services.ts";
import { createNodeSet } from "./nodes.ts";
import { byNode, combined, deferredChannel } from "./channels.ts";
import type { Entry } from "../events/log.ts";
import { withNodeArgument } from "./node_args.ts";

/** How long the first factory call waits for the first catalog load. */
export const STARTUP_BUDGET_MS = 500;

/** What every server instance is built from. */
export interface Runtime {
  version: string;
  config: Config;
  surface: Surface;
  session: Session;
  catalog: Catalog;
  /** The node's event stream and the watched contexts. */
  events: EventHub;
  /** The watched contexts' events as resources. */
  eventResources: EventResources;
  /** A person's marks read from the state directory at start (apps/marks.ts), and what made a file unusable. */
  marks: Awaited<ReturnType<typeof readMarks>>;
  /** The channel to a Claude Code session, when the person opted in (`--channel`); else null. */
  channel: Channel | null;
  /** Whether the server knows several nodes (its listed tools take `node`). */
  severalNodes: boolean;
  /** Starts the first catalog load (once) and waits for it at most the start-up budget. */
  warmUp(): Promise<void>;
}

/** Builds the runtime for one process. */
export async function createRuntime(config: Config): Promise<Runtime> {
  // 1. The services, each built on the ones before it.
  const key = await loadHandleKey(config.stateDir);
  const marks = await readMarks(config.stateDir);
  if (marks.problems.length > 0) {
    log.warn(
      `${marks.path} is not used: ${
        marks.problems.join("; ")
      }. Run mero-mcp doctor for what it needs.`,
    );
  }
  // A watch process (`mero-mcp watch`) reads the catalog when it tells of a burst, and again when a context changes
  // app: it never polls, so a quiet watch makes no node request.
  const watching = config.mode === "watch";
  const { session, catalog, events, apps } = nodeServices(config, marks.marks);
  const surface = createSurface();
  const builder = createToolBuilder({ node: session, catalog, key, events }, config);

  // 2. The tools, all over one context.
  const tools: ToolDeps = {
    config,
    node: session,
    catalog,
    apps,
    key,
    events,
    watchedApps: new WeakMap(),
    generated: builder.current,
    fixed: () => fixed,
    guidesShown: new Set(),
    selected: createListeners("the contexts select_app binds"),
    channelStatus: () => channel?.status() ?? null,
    notAnswering: () => surface.current().notAnswering,
  };
  const own = fixedTools(tools);
  // Several nodes (CALIMERO_NODES, or more than one under the node home): the listed tools take `node`.
  const nodes = createNodeSet(config, {
    deps: tools,
    tools: own,
    url: async () => (await session.connection()).url,
  }, marks.marks);
  const fixed = nodes.several ? withNodeArgument(own, nodes) : own;
  const publish = (state: CatalogState) =>
    surface.update({
      tools: [...fixed, ...builder.current().tools],
      guides: [...guidesOf(state), ...clientsOf(state, builder.current().names)],
      prompts: [...SERVER_PROMPTS, ...appPrompts(state, builder.current().names)],
      notAnswering: [...state.notAnswering, ...builder.current().notAnswering],
    });
  publish(catalog.current());

  // 3. The subscriptions: who hears of whose change.
  // A watch serves no tools: it reads the catalog only to decode events.
  if (!watching) {
    catalog.subscribe(async (state) => {
      await builder.build(state, fixed.length);
      publish(state);
    });
  }
  // An AppVersionChanged refreshes the catalog at once, so the app's tools and handles follow the context without
  // waiting for the poll, and its events are decoded with the new app from then on.
  events.onEvent((contextId, entry) => {
    surface.resourceUpdated(eventsUri(contextId));
    if (entry.type === "AppVersionChanged") {
      forgetWatchedApp(tools, contextId);
      log.info(`context ${contextId} changed application: refreshing the catalog`);
      void catalog.refresh();
    }
  });
  events.onWatchedChange(() => surface.resourcesChanged());
  // The channel follows the contexts the person chose, and with `selected` each one select_app binds; contexts named
  // `node:context` are followed on that node, by a channel over its own services (channels.ts).
  const spent = new Set<string>();
  const echoes = watching
    ? {
      judgeEchoes: async (contextId: string, entries: Entry[]) =>
        markEchoes(entries, await readClaims(config.stateDir, contextId), spent),
    }
    : {};
  const channel = config.channel
    ? combined(
      [...byNode(config.channel)].map(([node, choice]) =>
        node === null ? createChannel(choice, tools, echoes) : deferredChannel(node, async () => {
          const deps = await nodes.depsOf(node);
          return deps ? createChannel(choice, deps, { ...echoes, node }) : null;
        })
      ),
    )
    : null;
  if (channel) tools.selected.subscribe((contextId) => channel.select(contextId));
  // What agents select is recorded for a `watch selected` beside this server.
  if (!watching) tools.selected.subscribe(selectedRecorder(config.stateDir));
  // The first node call that answers while the catalog has never loaded triggers one refresh, which arms the poll.
  session.onFirstSuccess(() => catalog.ensureLoaded());

  return {
    version: denoJson.version,
    config,
    surface,
    session,
    catalog,
    events,
    eventResources: eventResources(tools),
    marks,
    channel,
    severalNodes: nodes.several,
    warmUp: () => catalog.warmUp(STARTUP_BUDGET_MS),
  };
}
