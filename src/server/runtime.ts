// The composition root of the server worker, built once per process: the services first (session, handle key, ABI
// loader, catalog, event hub), then the tools over them, then the subscriptions that carry one part's changes to
// another. Server instances read it; none owns it. Parts publish changes; only this module subscribes them to each
// other, so no part calls back into a layer above it (docs/architecture.md).

import denoJson from "../../deno.json" with { type: "json" };
import type { Config } from "../config/config.ts";
import { createSurface, type Surface } from "./surface.ts";
import { createSession, type Session } from "../node/session.ts";
import { loadHandleKey } from "../calls/handle.ts";
import { createAbiLoader } from "../apps/abi.ts";
import { createAbiStore, nodeScope } from "../apps/abi_store.ts";
import { readMarks, withMarks } from "../apps/marks.ts";
import { type Catalog, type CatalogState, createCatalog } from "../apps/catalog.ts";
import {
  AppResolutionError,
  appVersion,
  packageOrId,
  resolveApplication,
} from "../apps/resolve.ts";
import { createServiceReader } from "../apps/services.ts";
import { type Application, type CallOptions, unlessMissing } from "../mero/mod.ts";
import { createEventHub, type EventHub } from "../events/hub.ts";
import type { AppsService, ToolDeps } from "../tools/deps.ts";
import { fixedTools } from "../tools/registry.ts";
import { createToolBuilder } from "../tools/generated.ts";
import { forgetWatchedApp } from "../tools/app/watch.ts";
import { clientsOf, type EventResources, eventResources, guidesOf } from "./resources.ts";
import { eventsUri } from "../answer/uris.ts";
import { log } from "../lib/log.ts";
import { type Channel, createChannel } from "./channel.ts";
import { appPrompts, SERVER_PROMPTS } from "./prompts.ts";
import { markEchoes, readClaims, recordedOwnWrites } from "../events/shared_writes.ts";
import { selectedRecorder } from "./selected_record.ts";
import { createListeners } from "../lib/listeners.ts";

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
  /** Starts the first catalog load (once) and waits for it at most the start-up budget. */
  warmUp(): Promise<void>;
}

/** Builds the runtime for one process. */
export async function createRuntime(config: Config): Promise<Runtime> {
  // 1. The services, each built on the ones before it.
  const session = createSession(config);
  const key = await loadHandleKey(config.stateDir);
  // ABIs kept on disk are keyed by the node they came from (its address and identity), read once per process.
  let scope: Promise<string> | null = null;
  const nodeOfAbis = () =>
    scope ??= Promise.all([
      session.connection(),
      unlessMissing(session.admin.identity()).catch(() => null),
    ]).then(
      ([{ url }, identity]) => nodeScope(url, identity?.publicKey ?? null),
      (error) => {
        scope = null; // no node yet: asked again next time
        throw error;
      },
    );
  const marks = await readMarks(config.stateDir);
  if (marks.problems.length > 0) {
    log.warn(
      `${marks.path} is not used: ${
        marks.problems.join("; ")
      }. Run mero-mcp doctor for what it needs.`,
    );
  }
  const loader = createAbiLoader(
    session.admin,
    createAbiStore(config.stateDir, nodeOfAbis),
    () => void catalog.refresh(true),
  );
  const services = createServiceReader(async (appId) =>
    (await unlessMissing(session.admin.getApplication(appId)))?.application ?? null
  );
  /** The installed apps with their services (the node's list leaves them out). */
  const listApps = async (o?: CallOptions) =>
    await services.withServices((await session.admin.listApplications(o)).apps);
  // A watch process (`mero-mcp watch`) reads the catalog when it tells of a burst, and again when a context changes
  // app: it never polls, so a quiet watch makes no node request.
  const watching = config.mode === "watch";
  const catalog = createCatalog({
    // The node's identity is asked alongside the first list, not after it, when the first ABI is looked up.
    listApplications: () => (void nodeOfAbis().catch(() => {}), listApps()),
    // A person's marks (views, destructive methods) on what the ABI leaves unsaid (apps/marks.ts).
    loadAbi: async (app, service) =>
      withMarks(await loader.load(app, service), marks.marks.get(packageOrId(app)), {
        signerId: app.signer_id ?? null,
        version: appVersion(app),
      }),
    pollSeconds: watching ? 0 : config.pollSeconds,
  });
  const events = createEventHub({
    connect: async () => (await session.connection()).client.events,
    idleMs: config.eventIdleSeconds * 1000,
    // The server's writes are claimed on disk too, so a watch sharing the state directory knows their echoes.
    ...(watching ? {} : { ownWrites: recordedOwnWrites(config.stateDir) }),
  });
  const surface = createSurface();
  const builder = createToolBuilder({ node: session, catalog, key, events }, config);

  // 2. The tools, all over one context.
  const apps: AppsService = {
    list: listApps,
    resolve: (name) => resolveApp(catalog, name),
    abi: (app, service) => loader.load(app, service),
    refresh: async () => void await catalog.refresh(),
  };
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
  const fixed = fixedTools(tools);
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
  // The channel follows the contexts the person chose, and with `selected` each one select_app binds.
  const spent = new Set<string>();
  const channel = config.channel
    ? createChannel(
      config.channel,
      tools,
      watching
        ? {
          judgeEchoes: async (contextId, entries) =>
            markEchoes(entries, await readClaims(config.stateDir, contextId), spent),
        }
        : {},
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
    warmUp: () => catalog.warmUp(STARTUP_BUDGET_MS),
  };
}

/** Any app name → the installed app; one catalog refresh when the name is not (yet) known. */
async function resolveApp(catalog: Catalog, name: string): Promise<Application> {
  if (!catalog.current().loaded) await catalog.refresh();
  try {
    return resolveApplication(catalog.current().apps, name);
  } catch (error) {
    if (!(error instanceof AppResolutionError) || error.kind !== "not-found") throw error;
    await catalog.refresh();
    return resolveApplication(catalog.current().apps, name);
  }
}
