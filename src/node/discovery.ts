// Finding the node: five rungs, the first that matches wins, plus the handoff file and the
// health probe they read. The config-scan rung reads `config.scannedNodes`, which node_home.ts fills.

import type { Config } from "../config/config.ts";
import { log } from "../lib/log.ts";

/** Which rung found the node (reported by `node_status` and `doctor`). */
export type DiscoverySource = "env" | "handoff" | "named" | "config-scan" | "probe";

/** The rungs in the order they are tried. */
export const DISCOVERY_RUNGS: readonly DiscoverySource[] = [
  "env",
  "handoff",
  "named",
  "config-scan",
  "probe",
];

/** A node found by discovery. `nodeName` is the node directory or `CALIMERO_NODE_NAME`, else null. */
export interface DiscoveredNode {
  url: string;
  discoverySource: DiscoverySource;
  nodeName: string | null;
}

/** The desktop app's "connect AI agent" file, `agent.json` in the state dir, once validated. */
export interface Handoff {
  nodeUrl: string;
  accessToken: string;
  refreshToken: string | null;
}

/** Discovery could not settle on a node; the message says where it looked and what to set. */
export class DiscoveryError extends Error {
  override name = "DiscoveryError";
}

/** Injectable effects, for tests and for callers that already read the handoff. */
export interface DiscoveryDeps {
  fetch?: typeof fetch;
  /** The handoff to use instead of reading `agent.json` (null = there is none). */
  handoff?: Handoff | null;
  /** Probe timeout per port; 2000 ms unless a test needs it shorter. */
  probeTimeoutMs?: number;
}

/** Probing waits this long for a port's health answer. */
export const PROBE_TIMEOUT_MS = 2000;

const LOOPBACK_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]"];
const HANDOFF_FILE = "agent.json";
const HOW_TO_POINT =
  "Point mero-mcp at a node with CALIMERO_NODE_URL (or --node-url), or pick one under the node home with " +
  "CALIMERO_NODE_NAME (or --node-name)";

/** True when `url` is http(s) on a loopback host (`localhost`, `127.0.0.1`, `::1`). */
export function isLoopbackUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === "http:" || u.protocol === "https:") &&
      LOOPBACK_HOSTNAMES.includes(u.hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** Scheme, host and port of a URL, without userinfo, path or query: safe to print. */
export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(not a URL)";
  }
}

/**
 * The one spelling of a node's address, so two spellings of one node share one token file: lowercase scheme and
 * host, every loopback name as `localhost`, the port always explicit, the path prefix kept, no trailing slash.
 */
export function canonicalNodeUrl(url: string): string {
  const u = new URL(url);
  const scheme = u.protocol.toLowerCase();
  const host = LOOPBACK_HOSTNAMES.includes(u.hostname.toLowerCase()) ? "localhost" : u.hostname;
  const port = u.port || (scheme === "https:" ? "443" : scheme === "http:" ? "80" : "");
  const path = u.pathname.replace(/\/+$/, "");
  return `${scheme}//${host}${port ? `:${port}` : ""}${path}`;
}

/**
 * Reads `agent.json` from the state dir. Returns null when absent, and (with a warning that never shows a token
 * or the URL's path or query) when it is not valid JSON, has no `accessToken`, or names a non-loopback node.
 */
export async function readHandoff(stateDir: string): Promise<Handoff | null> {
  const file = `${stateDir}/${HANDOFF_FILE}`;
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    log.warn(`Ignoring ${file}: cannot read it (${(err as Error).name}).`);
    return null;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    log.warn(`Ignoring ${file}: it is not valid JSON. Reconnect the agent from the desktop app.`);
    return null;
  }
  const record = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
  const { nodeUrl, accessToken, refreshToken } = record;
  if (typeof accessToken !== "string" || accessToken.trim() === "") {
    log.warn(
      `Ignoring ${file}: it has no "accessToken". Reconnect the agent from the desktop app.`,
    );
    return null;
  }
  if (typeof nodeUrl !== "string" || !isLoopbackUrl(nodeUrl.trim())) {
    const shown = typeof nodeUrl === "string" ? `"${safeOrigin(nodeUrl.trim())}"` : "no nodeUrl";
    log.warn(
      `Ignoring ${file}: its nodeUrl (${shown}) is not a loopback address (localhost, 127.0.0.1, ::1).`,
    );
    return null;
  }
  return {
    nodeUrl: nodeUrl.trim().replace(/\/+$/, ""),
    accessToken: accessToken.trim(),
    refreshToken: typeof refreshToken === "string" && refreshToken.trim()
      ? refreshToken.trim()
      : null,
  };
}

/** One local port's answer to the health probe. */
export interface ProbeResult {
  port: number;
  url: string;
  /** True when `GET /admin-api/health` answered 2xx. */
  ok: boolean;
  /** Why it did not count: the status, or the fetch failure. */
  detail: string;
}

/**
 * Probes `GET http://localhost:<port>/admin-api/health` on every port at once, each bounded by the timeout.
 * Results come back in the order of `ports`; used by `list_nodes` and `doctor`.
 */
export async function probePorts(
  ports: readonly number[],
  deps: DiscoveryDeps = {},
): Promise<ProbeResult[]> {
  return await Promise.all(startProbes(ports, deps, new AbortController().signal));
}

/** Probes all ports in parallel and settles on the first in `ports` order that answers, without waiting for later ones. */
async function probeFirst(ports: readonly number[], deps: DiscoveryDeps): Promise<ProbeResult[]> {
  const stop = new AbortController();
  const pending = startProbes(ports, deps, stop.signal);
  const seen: ProbeResult[] = [];
  try {
    for (const probe of pending) {
      const result = await probe;
      seen.push(result);
      if (result.ok) break;
    }
  } finally {
    stop.abort();
    await Promise.allSettled(pending);
  }
  return seen;
}

function startProbes(
  ports: readonly number[],
  deps: DiscoveryDeps,
  stop: AbortSignal,
): Promise<ProbeResult>[] {
  const doFetch = deps.fetch ?? fetch;
  const timeoutMs = deps.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
  return ports.map(async (port): Promise<ProbeResult> => {
    const url = `http://localhost:${port}`;
    try {
      const signal = AbortSignal.any([stop, AbortSignal.timeout(timeoutMs)]);
      const res = await doFetch(`${url}/admin-api/health`, { signal, redirect: "manual" });
      await res.body?.cancel();
      return { port, url, ok: res.ok, detail: `HTTP ${res.status}` };
    } catch (err) {
      const e = err as Error;
      return { port, url, ok: false, detail: probeFailure(e, timeoutMs) };
    }
  });
}

function probeFailure(err: Error, timeoutMs: number): string {
  if (err.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
  if (err.name === "AbortError") return "not needed";
  const text = `${err.message} ${(err.cause as Error | undefined)?.message ?? ""}`;
  if (/refused/i.test(text)) return "connection refused";
  return err.message.slice(0, 200);
}

/** What one rung concluded: a node, a reason to try the next rung, or an error that stops discovery. */
export type RungOutcome =
  | { kind: "match"; node: DiscoveredNode }
  | { kind: "skip"; reason: string }
  | { kind: "error"; message: string };

/** One line of `doctor`'s discovery report. */
export interface RungReport {
  source: DiscoverySource;
  outcome: RungOutcome;
  /** True for the rung discovery picks (the first match, unless an earlier rung stopped with an error). */
  chosen: boolean;
}

async function evaluateRung(
  source: DiscoverySource,
  config: Config,
  deps: DiscoveryDeps,
): Promise<RungOutcome> {
  const nodes = config.scannedNodes;
  const home = config.nodeHome;
  const listed = nodes.map((n) => `${n.name} (${n.url})`).join(", ");
  switch (source) {
    case "env":
      if (config.nodeUrl === null) return { kind: "skip", reason: "CALIMERO_NODE_URL is not set" };
      return match(config.nodeUrl, source, config.nodeName);
    case "handoff": {
      const handoff = "handoff" in deps ? deps.handoff ?? null : await readHandoff(config.stateDir);
      if (handoff === null) {
        return { kind: "skip", reason: `no valid ${HANDOFF_FILE} in ${config.stateDir}` };
      }
      return match(handoff.nodeUrl, source, config.nodeName);
    }
    case "named": {
      if (config.nodeName === null) {
        return { kind: "skip", reason: "CALIMERO_NODE_NAME is not set" };
      }
      const node = nodes.find((n) => n.name === config.nodeName);
      if (node) return match(node.url, source, node.name);
      const found = nodes.length
        ? `Nodes there: ${nodes.map((n) => n.name).join(", ")}.`
        : "No node is configured there.";
      return {
        kind: "error",
        message: `No node named "${config.nodeName}" under ${home}${scanNote(config)}. ${found} ` +
          `Set CALIMERO_NODE_NAME (or --node-name) to one of them, or CALIMERO_NODE_URL (or --node-url) to its URL.`,
      };
    }
    case "config-scan": {
      if (nodes.length === 0) {
        return { kind: "skip", reason: `no node configured under ${home}${scanNote(config)}` };
      }
      if (nodes.length === 1) return match(nodes[0].url, source, nodes[0].name);
      const preferred = nodes.find((n) => n.name === "default");
      if (preferred) return match(preferred.url, source, preferred.name);
      return {
        kind: "error",
        message: `Several nodes are configured under ${home}: ${listed}. Choose one with ` +
          `CALIMERO_NODE_NAME=<name> (or --node-name), or set CALIMERO_NODE_URL (or --node-url) to its URL.`,
      };
    }
    case "probe": {
      const results = await probeFirst(config.probePorts, deps);
      const first = results.find((r) => r.ok);
      if (first) return match(first.url, source, config.nodeName);
      return {
        kind: "skip",
        reason: `no answer on ${
          results.map((r) => `localhost:${r.port} (${r.detail})`).join(", ")
        }`,
      };
    }
  }
}

function match(url: string, source: DiscoverySource, nodeName: string | null): RungOutcome {
  return {
    kind: "match",
    node: { url: url.replace(/\/+$/, ""), discoverySource: source, nodeName },
  };
}

function scanNote(config: Config): string {
  return config.scanError ? ` (the scan reported: ${config.scanError})` : "";
}

function notFoundMessage(config: Config): string {
  return `No Calimero node found. Looked for ${HANDOFF_FILE} in ${config.stateDir}, for nodes configured under ` +
    `${config.nodeHome}${scanNote(config)}, and for a node answering on localhost ports ` +
    `${config.probePorts.join(", ")}. Start a node, or: ${HOW_TO_POINT}.`;
}

/**
 * Finds the node to drive: env URL, handoff, named node, config scan, probe — the first rung that matches wins.
 * Throws {@link DiscoveryError} for a missing named node, an ambiguous scan, or when nothing answers.
 */
export async function discoverNode(
  config: Config,
  deps: DiscoveryDeps = {},
): Promise<DiscoveredNode> {
  for (const source of DISCOVERY_RUNGS) {
    const outcome = await evaluateRung(source, config, deps);
    if (outcome.kind === "match") return outcome.node;
    if (outcome.kind === "error") throw new DiscoveryError(outcome.message);
  }
  throw new DiscoveryError(notFoundMessage(config));
}

/**
 * Evaluates every rung (none stops the others) for `mero-mcp doctor`: for each, the node it matched or why not,
 * and which one discovery picks.
 */
export async function describeRungs(
  config: Config,
  deps: DiscoveryDeps = {},
): Promise<RungReport[]> {
  const outcomes = await Promise.all(DISCOVERY_RUNGS.map((s) => evaluateRung(s, config, deps)));
  const decisive = outcomes.findIndex((o) => o.kind !== "skip");
  return DISCOVERY_RUNGS.map((source, i) => ({
    source,
    outcome: outcomes[i],
    chosen: i === decisive && outcomes[i].kind === "match",
  }));
}
