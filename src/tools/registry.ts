// The registry of fixed tools: collects every toolset and keeps the ones the config switches on.
// Tools never decide their own toolset membership; this module does.

import type { Config } from "../config.ts";
import type { Tool } from "./tool.ts";
import { coreTools } from "./core.ts";

/** What fixed tools are built from. */
export interface FixedToolDeps {
  config: Config;
}

/** The fixed tools that the configured toolsets switch on, in listing order. */
export function fixedTools(deps: FixedToolDeps): Tool[] {
  const enabled = new Set<string>([...deps.config.toolsets, "core", "app"]);
  return coreTools(deps).filter((tool) => enabled.has(tool.group));
}
