// What cannot be undone is a person's decision. A tool that is about to do such a thing asks first (MCP
// elicitation), after it has resolved its exact target and before anything reaches the node; decline or cancel and
// nothing is sent. The answer is bound to that resolved target (ids, not the text the agent typed: an alias
// re-pointed after the question does not carry the answer along), and it is spent once given: a replayed
// acceptance, or an acceptance sent after a decline, asks again. Written once for both eras: on 2026-07-28 the client
// answers an `input_required` result and retries the call; on 2025-era connections the SDK asks with
// `elicitation/create` and re-enters the handler itself.

import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { errorResult, type ToolResult } from "../answer/result.ts";
import { escapeHidden } from "../lib/text.ts";

/** How long a question stays answerable. */
export const CONFIRM_TTL_SECONDS = 600;

/** What to do with one destructive call. */
export type Decision =
  | { proceed: true }
  /** Ask (an input request), or the result to return without running the call (declined, refused). */
  | { proceed: false; answer: ToolResult | InputRequiredResult };

/** Whether this connection can be asked: yes, no, or no way to know (stateless 2025-era HTTP: no `initialize`). */
export type CanAsk = boolean | "unknown";

/** Asks the person before destructive calls, one process's questions sealed with one process key. */
export interface Confirmer {
  /** `ServerOptions.requestState.verify`: integrity, expiry and client binding of an echoed question. */
  verify(state: string, ctx: ServerContext): Promise<unknown>;
  /**
   * Decides for a call about to do what `question` says to `target` (the resolved ids): proceed when the person
   * accepted this very target and the answer is unspent, or when the client cannot ask and `mode` is `ask`;
   * otherwise what to answer instead.
   */
  decide(call: {
    question: string;
    name: string;
    target: unknown;
    ctx: ServerContext;
    canAsk: CanAsk;
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

/** The sealed state of one question: the digest of its target and a nonce that an answer spends. */
interface Sealed {
  call: string;
  nonce: string;
}

/**
 * The client a question is bound to, where the transport tells one client from another: over HTTP, the bearer
 * credential it authenticated with (hashed inside the codec, never stored raw). Over stdio one process serves one
 * client, and the process key already binds the question to it.
 */
function clientBinding(ctx: ServerContext): string {
  const auth = ctx.http?.authInfo;
  return auth ? `${auth.clientId}\0${auth.token}` : "";
}

/** A confirmer with a fresh key (each process asks and checks its own questions). */
export function createConfirmer(
  key: Uint8Array = crypto.getRandomValues(new Uint8Array(32)),
): Confirmer {
  const codec = createRequestStateCodec<Sealed>({
    key,
    ttlSeconds: CONFIRM_TTL_SECONDS,
    bind: clientBinding,
  });
  /** Nonces already answered, with when their question expires (then the codec refuses them anyway). */
  const spent = new Map<string, number>();
  const spend = (nonce: string): boolean => {
    const now = Date.now();
    for (const [n, expires] of spent) if (expires <= now) spent.delete(n);
    if (spent.has(nonce)) return false;
    spent.set(nonce, now + CONFIRM_TTL_SECONDS * 1000);
    return true;
  };
  return {
    verify: (state, ctx) => codec.verify(state, ctx),
    async decide({ question, name, target, ctx, canAsk, mode }) {
      const call = await targetDigest(name, target);
      const state = ctx.mcpReq.requestState<Sealed>();
      const answer = inputResponse(ctx.mcpReq.inputResponses, "confirm");
      // An answer counts for the target it was asked about, once: a replay (or an accept after a decline) is asked
      // again, and so is an answer brought beside another target.
      if (answer.kind === "elicit" && state?.call === call && spend(state.nonce)) {
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
      if (canAsk === "unknown") {
        return {
          proceed: false,
          answer: errorResult(
            new Error(
              `This action needs a person's confirmation, and mero-mcp cannot ask over HTTP with the 2025 protocol (it is stateless there: no request carries what the client declared). Ask the user to do it, or connect over stdio or with protocol 2026-07-28, where the person is asked. ${question}`,
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
      const nonce = crypto.randomUUID();
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
          requestState: await codec.mint({ call, nonce }, ctx),
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

/**
 * A digest of what one call is about to do: the tool and its resolved target (ids, keys in order), so an answer
 * fits that target only, whatever names led to it.
 */
export async function targetDigest(name: string, target: unknown): Promise<string> {
  const text = JSON.stringify([name, sorted(target)]);
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
