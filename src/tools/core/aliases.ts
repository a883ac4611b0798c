// Aliases: short names a person gives contexts on this node (core's alias rules), created, looked up, listed
// and deleted.

import { z } from "zod";
import { callOptions, defineTool, output, READ_ONLY, type Tool, WRITE } from "../tool.ts";
import { jsonResult, textResult } from "../../answer/result.ts";
import { fromOffset, listOutput, listPage, pageInput } from "../list.ts";
import type { ToolDeps } from "../deps.ts";
import { aliasParam, contextParam } from "../params.ts";
import { contextArg } from "../context_arg.ts";

/** `create_alias` names a context with an alias on this node. */
export function createAlias(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "create_alias",
    title: "Create context alias",
    description: "Names a context with an alias on this node.",
    group: "core",
    input: z.object({
      alias: aliasParam,
      context: contextParam,
    }),
    annotations: WRITE,
    run: async ({ alias, context }, call) => {
      const o = callOptions(call);
      // Like every tool that names a context: an id, or an alias of one (the alias is resolved, never chained).
      const contextId = await contextArg(deps, context, o);
      await admin.createContextAlias(alias, contextId, o);
      return textResult(`The alias "${alias}" now points at context ${contextId}.`);
    },
  });
}

/** `lookup_alias` finds the context an alias points at. */
export function lookupAlias(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "lookup_alias",
    title: "Look up context alias",
    description: "Finds the context an alias points at.",
    group: "core",
    input: z.object({ name: aliasParam }),
    output: output({ alias: "string", contextId: "string?", note: "string" }, ["contextId"]),
    annotations: READ_ONLY,
    run: async ({ name }, call) => {
      const contextId = await admin.lookupContextAlias(name, callOptions(call));
      if (contextId === null) {
        return jsonResult({
          alias: name,
          contextId: null,
          note: `No alias "${name}" exists on this node.`,
        });
      }
      return jsonResult({ alias: name, contextId });
    },
  });
}

/** `list_aliases` lists this node's context aliases and the contexts they name. */
export function listAliases(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "list_aliases",
    title: "List context aliases",
    description: "Lists this node's context aliases and the contexts they name.",
    group: "core",
    input: z.object({ ...pageInput }),
    output: listOutput("aliases"),
    annotations: READ_ONLY,
    run: async (args, call) => {
      const all = Object.entries(await admin.listContextAliases(callOptions(call)))
        .map(([alias, contextId]) => ({ alias, contextId }));
      const { items, more } = fromOffset(all, args);
      return jsonResult(listPage("aliases", items, args, deps.config, more));
    },
  });
}

/** `delete_alias` removes an alias; its context stays. */
export function deleteAlias(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "delete_alias",
    title: "Delete context alias",
    description: "Removes an alias; its context stays. Removing an absent alias succeeds.",
    group: "core",
    input: z.object({ name: aliasParam }),
    // It drops a name, not state: create_alias puts it back.
    annotations: { ...WRITE, idempotentHint: true },
    run: async ({ name }, call) => {
      const o = callOptions(call);
      const was = await admin.lookupContextAlias(name, o);
      await admin.deleteContextAlias(name, o);
      return textResult(
        was === null
          ? `No alias "${name}" existed; nothing to remove.`
          : `The alias "${name}" is removed; context ${was} stays.`,
      );
    },
  });
}
