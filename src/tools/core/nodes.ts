// The node tools of the core toolset: this server's node (status, health, auth) and the local nodes.
// Every node call carries the tool call's abort signal and trace context.

import { z } from "zod";
import { callOptions, defineTool, output, READ_ONLY, type Tool } from "../tool.ts";
import { describeError } from "../../answer/errors.ts";
import { jsonResult, type ToolResult } from "../../answer/result.ts";
import { probePorts } from "../../node/discovery.ts";
import {
  type AuthMode,
  credentialPermissions,
  credentialSource,
  sameNode,
} from "../../node/node.ts";
import { type NamespaceUsage, type NetworkStatus, unlessMissing } from "../../mero/mod.ts";
import type { ToolDeps } from "../deps.ts";
import { authProblem, healthProblem, notANode } from "../../node/health.ts";

/** How long `list_nodes` waits for a local port's health answer. */
export const LIST_NODES_PROBE_MS = 750;

/** The node tools, in listing order; `coreTools` lists them first. */
export function nodeTools(deps: ToolDeps): Tool[] {
  return [
    defineTool({
      name: "node_status",
      title: "Node status",
      description:
        "Shows this server's node: URL, health, readiness, peers, network and whether auth works.",
      group: "core",
      input: z.object({}),
      output: output(
        {
          health: "string",
          url: "string?",
          auth: "string?",
          identity: "object?",
          ready: "string?",
          peers: "integer?",
          network: "object?",
          usage: "object?",
          channel: "string?",
        },
        ["health"],
      ),
      annotations: READ_ONLY,
      alwaysLoad: true,
      run: (_args, ctx) => nodeStatus(deps, callOptions(ctx)),
    }),
    defineTool({
      name: "list_nodes",
      title: "List local nodes",
      description:
        "Lists nodes (named, under the node home, or answering on a local port); `active` is this server's; a name is what `node` takes.",
      group: "core",
      input: z.object({}),
      output: output({ nodes: "array" }, ["nodes"]),
      annotations: READ_ONLY,
      run: () => listNodes(deps),
    }),
  ];
}

async function nodeStatus(
  deps: ToolDeps,
  o: ReturnType<typeof callOptions>,
): Promise<ToolResult> {
  const notAnswering = deps.notAnswering();
  let info;
  try {
    info = await deps.node.connect();
  } catch (error) {
    return jsonResult({
      health: `not connected: ${describeError(error)}`,
      url: null,
      nodeName: deps.config.nodeName,
      discoverySource: null,
      authMode: null,
      auth: "not checked: no node was found to ask",
      notAnswering,
    });
  }
  const admin = deps.node.admin;
  const credential = await credentialFacts(deps, info.authMode);
  // What a person looks at when a context does not sync: is the node ready, has it any peer, can peers reach it.
  // A node without one of these routes (older than core's) leaves that field null.
  const orNull = <T>(answer: Promise<T>) => answer.catch(() => null);
  const [healthAnswer, authAnswer, identity, ready, peers, network, usage] = await Promise.all([
    admin.health(o).then((answer) => String(answer?.status ?? "alive"), (error) => ({ error })),
    admin.listApplications(o).then(() => "ok", authProblem),
    // Who this node is in every group: the account members add, and the key it signs with (core
    // get_node_identity.rs); a node that has taken part in nothing yet has none (404).
    unlessMissing(admin.identity(o)).then(nodeIdentity, () => null),
    orNull(admin.ready(o)),
    orNull(admin.peers(o)),
    orNull(admin.networkStatus(o)).then((n) => n === null ? null : networkSummary(n)),
    orNull(admin.usage(o)).then((u) => u === null ? null : usageTotals(u.namespaces)),
  ]);
  const failed = typeof healthAnswer === "string" ? null : healthAnswer.error;
  const foreign = failed === null ? null : notANode(failed);
  // Another service's answers say nothing about this node: its auth "ok", readiness or peers would mislead.
  const node = foreign === null;
  const note = node ? syncNote(ready, peers, network) : null;
  return jsonResult({
    health: failed === null ? healthAnswer : foreign ?? healthProblem(failed),
    ...info,
    auth: node ? authAnswer : "not checked: the address does not hold a Calimero node",
    credential,
    identity: node ? identity : null,
    ready: node ? ready : null,
    peers: node ? peers : null,
    network: node ? network : null,
    usage: node ? usage : null,
    ...(note ? { note } : {}),
    ...(node ? eventsStatus(deps) : {}),
    ...channelStatus(deps),
    notAnswering,
  });
}

/**
 * Which credential this server sends and what it may do, so a person can see that an agent runs with the key they
 * gave it: `source` names where it came from, `scope` is its token's permissions ("admin" may do everything).
 */
async function credentialFacts(
  deps: ToolDeps,
  mode: AuthMode | null,
): Promise<Record<string, unknown>> {
  const source = mode === null ? null : credentialSource(mode);
  if (source === null) return { source: null, scope: "none: no token is sent" };
  const permissions = await credentialPermissions(await deps.node.connection());
  return {
    source,
    scope: permissions === null
      ? "unknown: the token's permissions cannot be read"
      : permissions.includes("admin")
      ? "admin"
      : permissions.slice(0, 16),
  };
}

/** What of the network snapshot tells whether peers can reach this node. */
function networkSummary(status: NetworkStatus): Record<string, unknown> {
  return {
    peerId: status.localPeerId,
    reachability: status.autonat?.reachability ?? "unknown",
    listening: status.listenAddrs?.length ?? 0,
    external: status.externalAddrs ?? [],
    relays: (status.relays ?? []).filter((r) => r.reservationStatus === "accepted").length,
  };
}

/** The namespaces' usage summed: how much this node holds. */
function usageTotals(namespaces: NamespaceUsage[]): Record<string, number> {
  return {
    namespaces: namespaces.length,
    contexts: namespaces.reduce((n, u) => n + (u.contextCount ?? 0), 0),
    bytes: namespaces.reduce((n, u) => n + (u.bytes?.total ?? 0), 0),
  };
}

/** Why contexts may not sync, in a sentence, when the node's readiness or peers say so; null when nothing does. */
function syncNote(
  ready: string | null,
  peers: number | null,
  network: Record<string, unknown> | null,
): string | null {
  if (ready !== null && ready !== "ready") {
    return `The node is ${ready}, not ready: it serves no sync or calls until it is; wait, or look at its log.`;
  }
  if (peers === 0) {
    const relays = network?.relays === 0 ? " and holds no relay reservation" : "";
    return `The node is connected to no peer${relays}: contexts cannot sync with other members until another member's node is online and reachable.`;
  }
  return null;
}

/** The node's identity as node_status shows it, or null when it has none yet. */
function nodeIdentity(answer: unknown): Record<string, string> | null {
  if (answer === null || typeof answer !== "object") return null;
  const { accountId, publicKey, deviceId } = answer as Record<string, unknown>;
  const out: Record<string, string> = {};
  if (typeof accountId === "string") out.accountId = accountId;
  if (typeof publicKey === "string") out.publicKey = publicKey;
  if (typeof deviceId === "string") out.deviceId = deviceId;
  return Object.keys(out).length ? out : null;
}

/** The channel the person opted into, in a few words: what it follows, what not yet and why, what it sent. */
function channelStatus(deps: ToolDeps): { channel?: string } {
  const status = deps.channelStatus();
  if (status === null) return {};
  const following = status.contexts.length
    ? `following ${status.contexts.join(", ")}`
    : "following no context yet";
  const waiting = status.waiting.map((w) => `${w.name} not yet (${w.why})`);
  return {
    channel: [following, ...waiting, `${status.notifications} notification(s) sent`].join("; "),
  };
}

/** The event stream in a few words: open, closed because nothing is watched, or retrying and why. */
function eventsStatus(deps: ToolDeps): { events: string } {
  const status = deps.events.status();
  if (status.watched === 0) return { events: "no context watched (the stream opens when one is)" };
  const contexts = `${status.watched} context${status.watched === 1 ? "" : "s"} watched`;
  if (status.connected) return { events: `stream open, ${contexts}` };
  return {
    events: `stream not connected, ${contexts}${
      status.lastProblem ? `: ${status.lastProblem}` : ""
    }; retrying`,
  };
}

async function listNodes(deps: ToolDeps): Promise<ToolResult> {
  const active = deps.node.info().url;
  const isActive = (url: string) => active !== null && sameNode(url, active);
  const nodes: { name: string | null; url: string; active: boolean }[] = [
    // The nodes the person named (CALIMERO_NODES): what `node` takes, with the node home's names.
    ...deps.config.nodes.map(({ name, url }) => ({ name, url, active: isActive(url) })),
    ...deps.config.scannedNodes
      .filter(({ name }) => !deps.config.nodes.some((n) => n.name === name))
      .map(({ name, url }) => ({ name, url, active: isActive(url) })),
  ];
  const probed = await probePorts(deps.config.probePorts, { probeTimeoutMs: LIST_NODES_PROBE_MS });
  for (const probe of probed) {
    if (!probe.ok || nodes.some((n) => sameNode(n.url, probe.url))) continue;
    nodes.push({ name: null, url: probe.url, active: isActive(probe.url) });
  }
  // Beyond the spec's two sources: a node given by URL (possibly remote) is still listed as the active one.
  if (active !== null && !nodes.some((n) => n.active)) {
    nodes.push({ name: deps.node.info().nodeName, url: active, active: true });
  }
  return jsonResult({ nodes });
}
