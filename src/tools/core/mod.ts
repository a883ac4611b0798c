// The core toolset (always on): this server's node, the apps installed and the node's contexts and aliases; the
// tools in listing order, each defined in a file of related tools beside this one.

import type { Tool } from "../tool.ts";
import type { ToolDeps } from "../deps.ts";
import { listApplications, listNamespaces } from "./apps.ts";
import {
  deleteContext,
  joinContext,
  leaveContext,
  listContextIdentities,
  listContexts,
} from "./contexts.ts";
import { createContext } from "./create_context.ts";
import { resyncContext, syncContext, updateContextApplication } from "./context_sync.ts";
import { createAlias, deleteAlias, listAliases, lookupAlias } from "./aliases.ts";
import { nodeTools } from "./nodes.ts";
import { clientKeyTool } from "./client_key.ts";

/** The core tools, in listing order. */
export function coreTools(deps: ToolDeps): Tool[] {
  return [
    ...nodeTools(deps),
    clientKeyTool(deps),
    listApplications(deps),
    listNamespaces(deps),
    listContexts(deps),
    createContext(deps),
    joinContext(deps),
    leaveContext(deps),
    listContextIdentities(deps),
    syncContext(deps),
    updateContextApplication(deps),
    resyncContext(deps),
    deleteContext(deps),
    createAlias(deps),
    lookupAlias(deps),
    listAliases(deps),
    deleteAlias(deps),
  ];
}
