// The process-wide state of the server worker, built once: session, handle key, ABI loader, catalog, surface.
// Server instances read it; none owns it (runtime.md §2). A catalog change is published as one step.

import denoJson from "../../deno.json" with { type: "json" };
import type { Config } from "../node/config.ts";
import { createSurface, type GuideResource, type Surface } from "./surface.ts";
import { createSession, type Session } from "../node/session.ts";
import { loadHandleKey } from "../calls/handle.ts";
import { createAbiLoader } from "../apps/abi.ts";
import { createAbiStore } from "../apps/abi_store.ts";
import { type Catalog, type CatalogState, createCatalog } from "../apps/catalog.ts";
import { AppResolutionError, resolveApplication } from "../apps/resolve.ts";
import { createServiceReader } from "../apps/services.ts";
import type { Application } from "../mero/types.ts";
import { type CallOptions, NodeHttpError } from "../mero/client.ts";
import { fixedTools } from "../tools/registry.ts";
import { appTools } from "../tools/app.ts";
import { buildGeneratedTools, type GeneratedTools } from "../tools/generated.ts";
import { type EventResources, eventResources, eventsUri } from "../tools/events.ts";
import { createEventHub, type EventHub } from "../events/hub.ts";
import { log } from "../log.ts";

/** How long the first factory call waits for the first catalog load (runtime.md §3). */
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
  /** Starts the first catalog load (once) and waits for it at most the start-up budget. */
  warmUp(): Promise<void>;
}

/** Builds the runtime for one process. */
export async function createRuntime(config: Config): Promise<Runtime> {
  const session = createSession(config);
  const key = await loadHandleKey(config.stateDir);
  const loader = createAbiLoader(session.admin, createAbiStore(config.stateDir));
  const surface = createSurface();
  const guidesShown = new Set<string>();
  let generated: GeneratedTools = { tools: [], names: new Map(), status: "on", notAnswering: [] };

  const services = createServiceReader((appId) =>
    session.admin.getApplication(appId).then(
      (r) => r.application,
      (error) => {
        if (error instanceof NodeHttpError && error.status === 404) return null;
        throw error;
      },
    )
  );
  /** The installed apps with their services (the node's list leaves them out). */
  const listApps = async (o?: CallOptions) =>
    await services.withServices((await session.admin.listApplications(o)).apps);

  const catalog: Catalog = createCatalog({
    listApplications: () => listApps(),
    loadAbi: (app, service) => loader.load(app, service),
    pollSeconds: config.pollSeconds,
    onChange: async (state) => {
      generated = await buildGeneratedTools(
        state.units,
        state.apps,
        config,
        fixed.length,
        { node: session, catalog, key },
      );
      publish(state);
    },
  });

  /** Any app name → the installed app; one catalog refresh when the name is not (yet) known. */
  const resolve = async (name: string): Promise<Application> => {
    if (!catalog.current().loaded) await catalog.refresh();
    try {
      return resolveApplication(catalog.current().apps, name);
    } catch (error) {
      if (!(error instanceof AppResolutionError) || error.kind !== "not-found") throw error;
      await catalog.refresh();
      return resolveApplication(catalog.current().apps, name);
    }
  };

  // One stream per process, opened by the first watch. An AppVersionChanged refreshes the catalog at once, so the
  // app's tools and handles follow the context without waiting for the poll.
  const events = createEventHub({
    connect: async () => (await session.connection()).client.events,
    onEvent(contextId, entry) {
      surface.resourceUpdated(eventsUri(contextId));
      if (entry.type === "AppVersionChanged") {
        log.info(`context ${contextId} changed application: refreshing the catalog`);
        void catalog.refresh();
      }
    },
    onWatchedChange: () => surface.resourcesChanged(),
  });
  const appDeps = {
    node: session,
    catalog,
    key,
    resolve,
    generated: () => generated,
    guidesShown,
    events,
  };

  const fixed = [
    ...fixedTools({
      config,
      session,
      apps: {
        list: listApps,
        resolve,
        abi: (app, service) => loader.load(app, service),
        refresh: async () => void await catalog.refresh(),
      },
      notAnswering: () => surface.current().notAnswering,
      events: () => events.status(),
    }),
    ...appTools(appDeps),
  ];

  const publish = (state: CatalogState) => {
    surface.update({
      tools: [...fixed, ...generated.tools],
      guides: guidesOf(state),
      notAnswering: [...state.notAnswering, ...generated.notAnswering],
    });
  };
  publish(catalog.current());

  // The first node call that answers while the catalog has never loaded triggers one refresh, which arms the poll.
  session.onFirstSuccess(() => catalog.ensureLoaded());

  return {
    version: denoJson.version,
    config,
    surface,
    session,
    catalog,
    events,
    eventResources: eventResources(appDeps),
    warmUp: () => catalog.warmUp(STARTUP_BUDGET_MS),
  };
}

/** One resource per distinct guide URI in the catalog. */
function guidesOf(state: CatalogState): GuideResource[] {
  const guides = new Map<string, GuideResource>();
  for (const unit of state.units) {
    if (unit.guide === null || guides.has(unit.guideUri)) continue;
    guides.set(unit.guideUri, {
      uri: unit.guideUri,
      name: `${unit.displayName} guide`,
      title: `${unit.displayName} guide`,
      text: unit.guide,
    });
  }
  return [...guides.values()];
}
