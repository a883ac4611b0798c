// A context route's bare 500 explained when this node does not hold the context: shared by the context tools.

import { type CallOptions, NodeHttpError, unlessMissing } from "../../mero/mod.ts";
import type { ToolDeps } from "../deps.ts";

/**
 * The error of a context route that answered core's bare 500, explained when this node does not hold the context
 * (asked of the node itself); any other error as it was.
 */
export async function notHeld(
  admin: ToolDeps["node"]["admin"],
  error: unknown,
  contextId: string,
  o: CallOptions,
): Promise<unknown> {
  if (!(error instanceof NodeHttpError) || error.status !== 500) return error;
  const held = await unlessMissing(admin.getContext(contextId, o)).catch(() => undefined);
  if (held === null) {
    return new Error(
      `This node does not hold context ${contextId} (the node answered "Internal server error"): check the id with list_contexts, or join it first.`,
    );
  }
  return error;
}
