// The registry of fixed tools: collects every toolset and keeps the ones the config switches on.
// Tools never decide their own toolset membership; this module does.

import type { Tool } from "./tool.ts";
import type { FixedToolDeps } from "./deps.ts";
import { coreTools } from "./core.ts";
import { blobTools } from "./blobs.ts";
import { governanceTools } from "./governance.ts";

/** The fixed tools that the configured toolsets switch on, in listing order. */
export function fixedTools(deps: FixedToolDeps): Tool[] {
  const enabled = new Set<string>([...deps.config.toolsets, "core", "app"]);
  return [...coreTools(deps), ...blobTools(deps), ...governanceTools(deps)]
    .filter((tool) => enabled.has(tool.group));
}
