// Which context a call means: an id or one of this node's aliases, and the service a context runs. Every tool that
// takes a `context` argument resolves it here, so an unknown one is refused in the same words everywhere.

import type { Context } from "../mero/mod.ts";
import { isNodeId } from "../primitives/base58.ts";
import { isAlias } from "../primitives/alias.ts";

/**
 * A context id as given (base58, 32 bytes), else the id a live alias lookup returns, else null. A value that
 * cannot be an alias is not looked up: the node would answer a bare 400 "invalid path params".
 */
export async function resolveContext(
  value: string,
  lookupAlias: (name: string) => Promise<string | null>,
): Promise<string | null> {
  if (isNodeId(value)) return value;
  if (!isAlias(value)) return null;
  return await lookupAlias(value);
}

/** What to say of a context argument that names no context on this node, and what to pass instead. */
export function unknownContext(value: string): string {
  const what = isAlias(value)
    ? "neither a context id nor an alias on this node"
    : "neither a context id nor a possible alias (aliases are 1 to 50 letters, digits, '.', '_' or '-')";
  return `"${value}" is ${what}. Pass a context id (list_contexts shows them) or an existing alias.`;
}

/** How a sentence names the alias the agent gave beside the id it points at now (nothing for an id). */
export function aliasNote(given: string, id: string): string {
  return given === id ? "" : ` (alias "${given}")`;
}

/** {@link resolveContext}, throwing {@link unknownContext}'s sentence when the value names no context. */
export async function contextIdOf(
  value: string,
  lookupAlias: (name: string) => Promise<string | null>,
): Promise<string> {
  const id = await resolveContext(value, lookupAlias);
  if (id === null) throw new Error(unknownContext(value));
  return id;
}

/** The service a context runs: its `serviceName`, else the app's sole service, else null. */
export function contextService(
  context: Context,
  services: Record<string, unknown> | undefined,
): string | null {
  if (context.serviceName) return context.serviceName;
  const names = Object.keys(services ?? {});
  return names.length === 1 ? names[0] : null;
}
