// The messages main and the server worker exchange. Main relays stdio lines; the worker speaks MCP.
// Lines travel as strings so main never parses protocol traffic.

import type { Config } from "../node/config.ts";

/** Main → worker. The first message is always `config`. */
export type ToWorker =
  /** `httpToken`: the content of `--http-token-file` (HTTP mode only; never logged). */
  | { type: "config"; config: Config; httpToken?: string }
  | { type: "line"; line: string }
  | { type: "close" };

/** Worker → main. `ready` comes first, once the worker's module graph has loaded. */
export type FromWorker =
  | { type: "ready" }
  /** One or more complete stdout lines (newline-terminated UTF-8), transferred rather than copied. */
  | { type: "out"; bytes: Uint8Array }
  | { type: "fatal"; message: string }
  /** Answer to `close`: every request that was in flight has been answered (or the grace period ran out). */
  | { type: "drained" };

/** How long the worker keeps answering in-flight requests after stdin closed. */
export const DRAIN_GRACE_MS = 2000;

/** Largest stdin line main accepts; a longer one gets a JSON-RPC error and is dropped. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
