// Test helpers for the simulated node's own tests: plain-fetch requests that always consume the
// body (so Deno's sanitizers stay quiet) and parse JSON losslessly.

import { parseLossless, stringifyExact } from "./json.ts";
import { type SimNode, type SimNodeOptions, startSimNode } from "./mod.ts";

/** A consumed HTTP answer. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed losslessly, or undefined when it is not JSON. */
  body: unknown;
}

/** Sends a request to the node; a body object is sent as JSON with the JSON content type. */
export async function call(
  sim: SimNode,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body instanceof Uint8Array || typeof body === "string") init.body = body as BodyInit;
  else if (body !== undefined) {
    init.body = stringifyExact(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  const response = await fetch(`${sim.url}${path}`, init);
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = parseLossless(text);
  } catch { /* not JSON */ }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** Sends a JSON-RPC `execute` and returns the parsed response body. */
export async function rpc(
  sim: SimNode,
  contextId: string,
  method: string,
  argsJson: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const answer = await call(sim, "POST", "/jsonrpc", {
    jsonrpc: "2.0",
    id: 1,
    method: "execute",
    params: { contextId, method, argsJson },
  }, headers);
  if (answer.status !== 200) throw new Error(`jsonrpc answered ${answer.status}: ${answer.text}`);
  return answer.body as Record<string, unknown>;
}

/** Runs `fn` against a fresh node and always closes it. */
export async function withSim(
  options: SimNodeOptions,
  fn: (sim: SimNode) => Promise<void>,
): Promise<void> {
  const sim = await startSimNode(options);
  try {
    await fn(sim);
  } finally {
    await sim.close();
  }
}
