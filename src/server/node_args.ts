// The `node` argument: when a server knows several nodes, each listed fixed and app tool takes an optional `node` (one
// of the names list_nodes shows) and sends the call to that node's own tool, which validates, checks and asks as
// ever. Without `node`, a call goes where its app_handle was issued (each node signs its handles with its own key),
// else to the server's own node. A question asked of the person names the node, and the answer is bound to it.

import type { Tool, ToolCall } from "../tools/tool.ts";
import { errorResult } from "../answer/result.ts";
import { verifyHandle } from "../calls/handle.ts";
import { DEFAULT_NODE, type NodeSet } from "./nodes.ts";

/** The most handles remembered with the node that issued them. */
const HANDLES_KEPT = 1_024;

/** The listed tools, each taking `node` and sending the call to that node's tool of the same name. */
export function withNodeArgument(tools: readonly Tool[], nodes: NodeSet): Tool[] {
  const issuers = new Map<string, string>();

  /** The node that issued a handle: the one whose key verifies it; null when none does. */
  const issuerOf = async (handle: string): Promise<string | null> => {
    const known = issuers.get(handle);
    if (known !== undefined) return known;
    for (const name of nodes.names) {
      const key = await nodes.keyOf(name);
      if (key !== null && (await verifyHandle(key, handle)).ok) {
        if (issuers.size >= HANDLES_KEPT) issuers.delete(issuers.keys().next().value!);
        issuers.set(handle, name);
        return name;
      }
    }
    return null;
  };

  return tools.map((tool) => ({
    ...tool,
    inputSchema: withNodeProperty(tool.inputSchema, nodes.names),
    async call(args, call) {
      const { node, ...rest } = args;
      if (node !== undefined && (typeof node !== "string" || !nodes.names.includes(node))) {
        return errorResult(
          new Error(
            `node ${JSON.stringify(node)} is not a node this server knows: pass one of ${
              nodes.names.map((n) => JSON.stringify(n)).join(", ")
            } (list_nodes shows them), or leave it out for the server's own node.`,
          ),
        );
      }
      const handle = handleOf(rest);
      const issuer = handle === null ? null : await issuerOf(handle);
      if (typeof node === "string" && issuer !== null && issuer !== node) {
        return errorResult(
          new Error(
            `This app_handle was issued on node "${issuer}", not "${node}": pass node "${issuer}", or call select_app with node "${node}" for a handle there.`,
          ),
        );
      }
      const name = typeof node === "string" ? node : issuer ?? DEFAULT_NODE;
      const target = (await nodes.toolsOf(name))?.get(tool.name);
      if (!target) {
        return errorResult(
          new Error(`Node "${name}" does not serve ${tool.name} (its toolsets or read-only mode).`),
        );
      }
      return await target.call(rest, onNode(call, name));
    },
  }));
}

/** The app_handle a call carries: its own, or (call_many) its first item's. */
function handleOf(args: Record<string, unknown>): string | null {
  if (typeof args.app_handle === "string") return args.app_handle;
  const first = Array.isArray(args.calls) ? args.calls[0] : undefined;
  const item = typeof first === "object" && first !== null
    ? first as Record<string, unknown>
    : null;
  return typeof item?.app_handle === "string" ? item.app_handle : null;
}

/** The call's facilities with each question naming the node, and the answer bound to it. */
function onNode(call: ToolCall, name: string): ToolCall {
  return {
    ...call,
    confirm: (question, target) =>
      call.confirm(`On node "${name}": ${question}`, { node: name, target }),
  };
}

/** The input schema with an optional `node` among its properties. */
function withNodeProperty(
  schema: Record<string, unknown>,
  names: readonly string[],
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return {
    ...schema,
    properties: {
      ...properties,
      // Described once, in the instructions (server.ts NODES_INSTRUCTIONS): each tool carries the names alone.
      node: { enum: [...names] },
    },
  };
}
