// What cannot be undone is a person's decision. Before a destructive tool or app method runs, the person is asked
// (MCP elicitation) with the exact target in words; decline or cancel and nothing reaches the node. The answer is
// bound to the one call it was asked for: the question travels with a sealed digest of the call (tool name and
// arguments), and an answer that comes back beside another call is not taken for it. Written once for both eras:
// on 2026-07-28 the client answers an `input_required` result and retries the call; on 2025-era connections the
// SDK asks with `elicitation/create` and re-enters the handler itself.

import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { errorResult, type ToolResult } from "../result.ts";
import { escapeHidden } from "../text.ts";

/** How long a question stays answerable. */
export const CONFIRM_TTL_SECONDS = 600;

/** What to do with one destructive call. */
export type Decision =
  | { proceed: true }
  /** Ask (an input request), or the result to return without running the call (declined, refused). */
  | { proceed: false; answer: ToolResult | InputRequiredResult };

/** Asks the person before destructive calls, one process's questions sealed with one process key. */
export interface Confirmer {
  /** `ServerOptions.requestState.verify`: integrity and expiry of an echoed question. */
  verify(state: string, ctx: ServerContext): Promise<unknown>;
  /**
   * Decides for a call whose tool asked `question`: proceed when the person accepted this very call, or when the
   * client cannot ask and `mode` is `ask`; otherwise what to answer instead.
   */
  decide(call: {
    question: string;
    name: string;
    args: Record<string, unknown>;
    ctx: ServerContext;
    canAsk: boolean;
    mode: "ask" | "require";
  }): Promise<Decision>;
}

/** The answer schema: one boolean the person sets. */
const SCHEMA = {
  type: "object" as const,
  properties: {
    confirm: {
      type: "boolean" as const,
      title: "Go ahead",
      description: "Allow this one action. It cannot be undone.",
    },
  },
  required: ["confirm"],
};

/** A confirmer with a fresh key (each process asks and checks its own questions). */
export function createConfirmer(
  key: Uint8Array = crypto.getRandomValues(new Uint8Array(32)),
): Confirmer {
  const codec = createRequestStateCodec<{ call: string }>({ key, ttlSeconds: CONFIRM_TTL_SECONDS });
  return {
    verify: (state, ctx) => codec.verify(state, ctx),
    async decide({ question, name, args, ctx, canAsk, mode }) {
      const call = await callDigest(name, args);
      const state = ctx.mcpReq.requestState<{ call: string }>();
      const answer = inputResponse(ctx.mcpReq.inputResponses, "confirm");
      if (answer.kind === "elicit" && state?.call === call) {
        if (answer.action === "accept" && answer.content?.confirm === true) {
          return { proceed: true };
        }
        return {
          proceed: false,
          answer: errorResult(
            new Error(
              answer.action === "cancel"
                ? `The person cancelled the question, so nothing was done. (${question})`
                : `The person declined, so nothing was done. (${question})`,
            ),
          ),
        };
      }
      if (!canAsk) {
        if (mode === "ask") return { proceed: true }; // the host gates on the tool's annotations
        return {
          proceed: false,
          answer: errorResult(
            new Error(
              `This action needs a person's confirmation, and this client cannot ask for it (no elicitation). Ask the user to do it, or to run mero-mcp without --confirm-destructive require. ${question}`,
            ),
          ),
        };
      }
      return {
        proceed: false,
        answer: inputRequired({
          // The person reads names an app or a node chose: none of their hidden characters passes raw.
          inputRequests: {
            confirm: inputRequired.elicit({
              message: escapeHidden(question),
              requestedSchema: SCHEMA,
            }),
          },
          requestState: await codec.mint({ call }),
        }),
      };
    },
  };
}

/** Whether the client that sent this request can be asked (form elicitation), in either era. */
export function clientCanAsk(
  ctx: ServerContext,
  legacyCapabilities: { elicitation?: unknown } | undefined,
): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const modern = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
  const elicitation = (modern ?? legacyCapabilities)?.elicitation as {
    form?: unknown;
    url?: unknown;
  } | undefined;
  if (elicitation === undefined || elicitation === null) return false;
  // An empty elicitation capability means form mode (MCP 2025-11-25).
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** A digest of one call: the tool and its arguments, keys in order, so an answer fits this call only. */
export async function callDigest(name: string, args: Record<string, unknown>): Promise<string> {
  const text = JSON.stringify([name, sorted(args)]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(digest).toHex();
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
