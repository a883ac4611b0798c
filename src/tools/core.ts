// The core toolset: node status and node discovery, always on.

import { z } from "zod";
import { defineTool, READ_ONLY, type Tool } from "./tool.ts";
import { textResult } from "../errors.ts";
import type { FixedToolDeps } from "./registry.ts";

/** The core tools. */
export function coreTools(deps: FixedToolDeps): Tool[] {
  return [
    defineTool({
      name: "node_status",
      title: "Node status",
      description:
        "Shows which Calimero node this server drives, how it was found, and whether it is healthy and authenticated.",
      group: "core",
      input: z.object({}),
      annotations: READ_ONLY,
      run: () =>
        Promise.resolve(textResult({
          health: "unknown",
          url: deps.config.nodeUrl,
          nodeName: deps.config.nodeName,
          discoverySource: null,
          authMode: null,
          auth: "not checked yet",
          notAnswering: [],
        })),
    }),
  ];
}
