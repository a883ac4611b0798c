// One node's services: its lazy session, its ABIs (kept on disk per node), its catalog and its event stream. The
// runtime builds them for its own node, and the node set (nodes.ts) for each named node on first use.

import type { Config } from "../config/config.ts";
import { createSession, type Session } from "../node/session.ts";
import { createAbiLoader } from "../apps/abi.ts";
import { createAbiStore, nodeScope } from "../apps/abi_store.ts";
import { type AppMarks, withMarks } from "../apps/marks.ts";
import { type Catalog, createCatalog } from "../apps/catalog.ts";
import {
  AppResolutionError,
  appVersion,
  packageOrId,
  resolveApplication,
} from "../apps/resolve.ts";
import { createServiceReader } from "../apps/services.ts";
import { type Application, type CallOptions, unlessMissing } from "../mero/mod.ts";
import { createEventHub, type EventHub } from "../events/hub.ts";
import type { AppsService } from "../tools/deps.ts";
import { recordedOwnWrites } from "../events/shared_writes.ts";

/** One node's services, each built on the ones before it; nothing asks the node until a tool or the catalog does. */
export interface NodeServices {
  session: Session;
  loader: ReturnType<typeof createAbiLoader>;
  catalog: Catalog;
  events: EventHub;
  apps: AppsService;
}

/**
 * The services of the node `config` names: its lazy session, its ABIs (kept on disk per node), its catalog and its
 * event stream. The runtime builds one for its own node, and one per named node on first use (nodes.ts).
 */
export function nodeServices(config: Config, marks: AppMarks): NodeServices {
  const session = createSession(config);
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
  const watching = config.mode === "watch";
  const catalog = createCatalog({
    // The node's identity is asked alongside the first list, not after it, when the first ABI is looked up.
    listApplications: () => (void nodeOfAbis().catch(() => {}), listApps()),
    // A person's marks (views, destructive methods) on what the ABI leaves unsaid (apps/marks.ts).
    loadAbi: async (app, service) =>
      withMarks(await loader.load(app, service), marks.get(packageOrId(app)), {
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
  const apps: AppsService = {
    list: listApps,
    resolve: (name) => resolveApp(catalog, name),
    abi: (app, service) => loader.load(app, service),
    refresh: async () => void await catalog.refresh(),
  };
  return { session, loader, catalog, events, apps };
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
