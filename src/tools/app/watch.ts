// Which app a watched context runs, as the app tools learn it: select_app says so when it starts a watch, else the
// node's record of the context is read once. Events are decoded with that app's ABI; when the context's app
// changes (AppVersionChanged) the runtime forgets it, and the next read asks the node again.

import type { CatalogUnit } from "../../apps/catalog.ts";
import { unitOf } from "../../apps/catalog.ts";
import { contextService } from "../../calls/context.ts";
import type { Watch } from "../../events/hub.ts";
import type { ToolDeps } from "../deps.ts";

/** Watches a context for an agent that showed interest (select_app); says how it went in a few words. */
export async function watchFor(
  deps: ToolDeps,
  contextId: string,
  unit: CatalogUnit,
): Promise<string> {
  const { watch } = await deps.events.watch(contextId);
  deps.watchedApps.set(watch, { applicationId: unit.applicationId, service: unit.service });
  if (watch.state === "subscribed") {
    return "yes: wait_for_events returns what happens in it from now on";
  }
  if (watch.state === "refused") return `no: ${watch.problem}`;
  return `not yet: the node's event stream is not connected${
    watch.problem ? ` (${watch.problem})` : ""
  }`;
}

/** The unit a watched context runs now: as last learnt, else read from the node once; null when unknown. */
export async function unitOfWatch(
  deps: ToolDeps,
  watch: Watch,
  signal?: AbortSignal,
): Promise<CatalogUnit | null> {
  let app = deps.watchedApps.get(watch);
  if (app === undefined) {
    try {
      const context = await deps.node.admin.getContext(watch.contextId, { signal });
      const installed = deps.catalog.current().apps.find((a) => a.id === context.applicationId);
      app = {
        applicationId: context.applicationId,
        service: contextService(context, installed?.services),
      };
      deps.watchedApps.set(watch, app);
    } catch {
      return null; // decoded without the ABI: payloads as the node sent them
    }
  }
  return unitOf(deps.catalog.current(), app.applicationId, app.service) ?? null;
}

/** Forgets the app a context was known to run (its app changed): the next read asks the node. */
export function forgetWatchedApp(deps: ToolDeps, contextId: string): void {
  const watch = deps.events.get(contextId);
  if (watch) deps.watchedApps.delete(watch);
}
