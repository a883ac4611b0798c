// The registry of fixed tools: collects every toolset and keeps the ones the config switches on.
// Tools never decide their own toolset membership; this module does.

import { type Tool, withResultBudget } from "./tool.ts";
import type { ToolDeps } from "./deps.ts";
import { coreTools } from "./core/mod.ts";
import { blobTools } from "./blobs/mod.ts";
import { governanceTools } from "./governance/mod.ts";
import { appTools } from "./app/mod.ts";

/**
 * The fixed tools that the configured toolsets switch on, then the app tools, in listing order. In read-only mode
 * only the tools annotated read-only are kept: the annotations are the one statement of what a tool does.
 */
export function fixedTools(deps: ToolDeps): Tool[] {
  const enabled = new Set<string>([...deps.config.toolsets, "core", "app"]);
  return [...coreTools(deps), ...blobTools(deps), ...governanceTools(deps), ...appTools(deps)]
    .filter((tool) => enabled.has(tool.group))
    .filter((tool) => !deps.config.readOnly || tool.annotations.readOnlyHint)
    .map((tool) => withResultBudget(tool, deps.config.resultChars));
}
