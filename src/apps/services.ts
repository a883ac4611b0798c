// The services of each installed app. The node's list (`GET /admin-api/applications`) never carries them:
// core's `list_applications` builds records without services, and only `GET /admin-api/applications/:id`
// fills them (calimero-network/core crates/node/primitives/src/client/application/query.rs and
// application.rs, get_application). So each app's own record is read once per bytecode blob, remembered by it,
// and an idle poll costs no request beyond the list.

import { mapLimit } from "../lib/pool.ts";
import type { Application, ApplicationBlob } from "../mero/mod.ts";

/** At most this many record reads in flight while a catalog is built. */
export const RECORD_CONCURRENCY = 8;

/** Reads one application's own record (null when the node no longer has it). */
export type ReadApplication = (appId: string) => Promise<Application | null>;

/** Adds `services` to listed records; see {@link createServiceReader}. */
export interface ServiceReader {
  /** The apps with `services` filled from their own records (a record read only for a new bytecode blob). */
  withServices(apps: Application[]): Promise<Application[]>;
}

/**
 * Fills the services the list leaves out. A list that already carries services (older simulators, a future
 * node) is taken as it is. A record that cannot be read leaves the app without services this time and is
 * asked again at the next build. What is remembered is only what the current list names, so the memory
 * follows the installed set.
 */
export function createServiceReader(read: ReadApplication): ServiceReader {
  let known = new Map<string, Record<string, ApplicationBlob> | undefined>();
  // The same list object (the node client returns it for a byte-identical answer) after a build where every
  // record was read gives the same answer: returned as is, so the catalog sees nothing changed.
  let last: { input: Application[]; output: Application[] } | null = null;
  return {
    async withServices(apps) {
      if (last?.input === apps) return last.output;
      let complete = true;
      const next = new Map<string, Record<string, ApplicationBlob> | undefined>();
      const out = await mapLimit(apps, RECORD_CONCURRENCY, async (app) => {
        if (app.services && Object.keys(app.services).length > 0) return app;
        const key = `${app.id}\0${app.blob.bytecode}`;
        let services = known.get(key);
        if (!known.has(key)) {
          try {
            const record = await read(app.id);
            services = record && record.blob.bytecode === app.blob.bytecode
              ? nonEmpty(record.services)
              : undefined;
            next.set(key, services);
          } catch {
            complete = false;
            return app;
          }
        } else {
          next.set(key, services);
        }
        return services ? { ...app, services } : app;
      });
      known = next;
      last = complete ? { input: apps, output: out } : null;
      return out;
    },
  };
}

function nonEmpty(
  services: Record<string, ApplicationBlob> | undefined,
): Record<string, ApplicationBlob> | undefined {
  return services && Object.keys(services).length > 0 ? services : undefined;
}
