// A context as an agent names it (id or alias) → its id, the alias asked of the node with the tool call's options:
// the one way every fixed tool resolves a context argument.

import type { CallOptions } from "../mero/mod.ts";
import { contextIdOf, resolveContext } from "../calls/context.ts";
import type { ToolDeps } from "./deps.ts";

/** The id of the context `value` names; throws the unknown-context sentence when it names none. */
export function contextArg(deps: ToolDeps, value: string, o: CallOptions): Promise<string> {
  return contextIdOf(value, (name) => deps.node.admin.lookupContextAlias(name, o));
}

/** The id of the context `value` names, or null when it names none. */
export function maybeContextArg(
  deps: ToolDeps,
  value: string,
  o: CallOptions,
): Promise<string | null> {
  return resolveContext(value, (name) => deps.node.admin.lookupContextAlias(name, o));
}
