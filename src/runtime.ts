// The process-wide state of the server worker, built once: surface, session, catalog, handle key.
// Server instances read it; none owns it (runtime.md §2).

import denoJson from "../deno.json" with { type: "json" };
import type { Config } from "./config.ts";
import { createSurface, type Surface } from "./surface.ts";
import { fixedTools } from "./tools/registry.ts";

/** What every server instance is built from. */
export interface Runtime {
  version: string;
  config: Config;
  surface: Surface;
  /** Starts the first catalog load (once) and waits for it at most the start-up budget. */
  warmUp(): Promise<void>;
}

/** Builds the runtime for one process. */
export function createRuntime(config: Config): Promise<Runtime> {
  const surface = createSurface();
  surface.update({ tools: fixedTools({ config }) });
  return Promise.resolve({
    version: denoJson.version,
    config,
    surface,
    warmUp: () => Promise.resolve(),
  });
}
