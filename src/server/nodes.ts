// Several nodes from one server. Besides the node it discovers or is pointed at ("default"), a server knows the nodes
// the person named (`CALIMERO_NODES`) and the ones under the node home (merod's and merobox's folders). Each named node
// gets its own services on first use — session and tokens, kept ABIs, catalog, event stream — and its own fixed and
// app tools over them; nothing is shared with another node but the state directory and the person's marks. The
// listed tools stay the default node's, each taking an optional `node` that sends the call to that node's tool
// (node_args.ts). Generated per-method tools are the default node's alone: `call`, `call_many` and `run_script` reach
// every other node's methods by name, so the list does not grow with the nodes.

import type { Config } from "../config/config.ts";
import type { AppMarks } from "../apps/marks.ts";
import type { GeneratedTools, ToolDeps } from "../tools/deps.ts";
import type { Tool } from "../tools/tool.ts";
import { fixedTools } from "../tools/registry.ts";
import { createListeners } from "../lib/listeners.ts";
import { sameNode } from "../node/node.ts";
import { nodeServices } from "./node_services.ts";

/** The name of the server's own node in `node` and list_nodes. */
export const DEFAULT_NODE = "default";

/** A node a tool call can name. */
export interface NamedEntry {
  name: string;
  url: string;
  /** Where its name comes from. */
  source: "configured" | "node home";
}

/** The nodes of one process, their tools built on first use. */
export interface NodeSet {
  /** Every name `node` takes, the default first. */
  names: readonly string[];
  /** The named nodes besides the default, as configured. */
  entries: readonly NamedEntry[];
  /** Whether tools take `node` at all: more than one node is known. */
  several: boolean;
  /** The tools of a node by name (the default's are the listed ones); null for a name no node has. */
  toolsOf(name: string): Promise<ReadonlyMap<string, Tool> | null>;
  /** The handle key of a node (each node signs its own handles, so one node's handle never passes on another). */
  keyOf(name: string): Promise<CryptoKey | null>;
  /** What a node's tools are built over (the channel follows contexts on it); null for a name no node has. */
  depsOf(name: string): Promise<ToolDeps | null>;
}

const NO_GENERATED: GeneratedTools = {
  tools: [],
  names: new Map(),
  status: "other-node",
  notAnswering: [],
};

/** The named nodes: the configured ones, then the node home's not already named (by name or address). */
export function namedNodes(config: Config): NamedEntry[] {
  const entries: NamedEntry[] = config.nodes.map((n) => ({ ...n, source: "configured" }));
  // A lone node under the node home is the one discovery picks: a one-node person's tools stay as they were.
  if (config.nodes.length === 0 && config.scannedNodes.length < 2) return entries;
  for (const scanned of config.scannedNodes) {
    if (scanned.name === DEFAULT_NODE) continue;
    if (entries.some((e) => e.name === scanned.name || sameNode(e.url, scanned.url))) continue;
    entries.push({ name: scanned.name, url: scanned.url, source: "node home" });
  }
  return entries;
}

/**
 * The node set over the default node's tools. `defaultUrl` resolves to the default node's address once it is known
 * (a named node at that address is the default node, not a second session to it).
 */
export function createNodeSet(
  config: Config,
  defaults: { deps: ToolDeps; tools: readonly Tool[]; url(): Promise<string | null> },
  marks: AppMarks,
): NodeSet {
  const entries = namedNodes(config);
  const built = new Map<
    string,
    Promise<{ tools: Map<string, Tool>; key: CryptoKey; deps: ToolDeps }>
  >();
  const defaultTools = new Map(defaults.tools.map((t) => [t.name, t]));

  const build = (entry: NamedEntry) => {
    let node = built.get(entry.name);
    if (!node) {
      node = (async () => {
        const key = await nodeKey(defaults.deps.key, entry.url);
        const { tools, deps } = secondaryTools(config, entry, key, marks);
        return { tools: new Map(tools.map((t) => [t.name, t])), key, deps };
      })();
      built.set(entry.name, node);
    }
    return node;
  };

  /** The entry a name means, or "default" for the default node (by name, or by a named node at its address). */
  const resolve = async (name: string): Promise<NamedEntry | typeof DEFAULT_NODE | null> => {
    if (name === DEFAULT_NODE) return DEFAULT_NODE;
    const entry = entries.find((e) => e.name === name);
    if (!entry) return null;
    const url = await defaults.url().catch(() => null);
    return url !== null && sameNode(url, entry.url) ? DEFAULT_NODE : entry;
  };

  return {
    names: [DEFAULT_NODE, ...entries.map((e) => e.name)],
    entries,
    several: entries.length > 0,
    async toolsOf(name) {
      const entry = await resolve(name);
      if (entry === null) return null;
      return entry === DEFAULT_NODE ? defaultTools : (await build(entry)).tools;
    },
    async keyOf(name) {
      const entry = await resolve(name);
      if (entry === null) return null;
      return entry === DEFAULT_NODE ? defaults.deps.key : (await build(entry)).key;
    },
    async depsOf(name) {
      const entry = await resolve(name);
      if (entry === null) return null;
      return entry === DEFAULT_NODE ? defaults.deps : (await build(entry)).deps;
    },
  };
}

/**
 * A named node's configuration: the server's, with the node's address and without the secrets the person configured
 * (those are for the default node alone; a node's own credential comes from `mero-mcp login`, or from agent.json when
 * the desktop app names this node). What its tools and doctor's checks of it run under.
 */
export function namedNodeConfig(config: Config, entry: NamedEntry): Config {
  return {
    ...config,
    nodeUrl: entry.url,
    nodeName: null,
    authToken: null,
    refreshToken: null,
    username: null,
    password: null,
    channel: null,
    nodes: [],
  };
}

/** A named node's fixed and app tools over services of its own ({@link namedNodeConfig}). */
function secondaryTools(
  config: Config,
  entry: NamedEntry,
  key: CryptoKey,
  marks: AppMarks,
): { tools: Tool[]; deps: ToolDeps } {
  const nodeConfig = namedNodeConfig(config, entry);
  const { session, catalog, events, apps } = nodeServices(nodeConfig, marks);
  const deps: ToolDeps = {
    config: nodeConfig,
    node: session,
    catalog,
    apps,
    key,
    events,
    watchedApps: new WeakMap(),
    generated: () => NO_GENERATED,
    fixed: () => tools,
    guidesShown: new Set(),
    selected: createListeners("the contexts select_app binds"),
    channelStatus: () => null,
    notAnswering: () => catalog.current().notAnswering,
  };
  const tools = fixedTools(deps);
  // The first node call that answers loads the catalog, which arms its poll (as for the default node).
  session.onFirstSuccess(() => catalog.ensureLoaded());
  return { tools, deps };
}

/**
 * A node's handle key: HMAC of the process key over the node's address, so handles of one node are refused by
 * another's tools (and the default node's stay the process key's, valid across restarts as before).
 */
async function nodeKey(processKey: CryptoKey, url: string): Promise<CryptoKey> {
  const raw = await crypto.subtle.sign(
    "HMAC",
    processKey,
    new TextEncoder().encode(`mero-mcp node handle key\0${url}`),
  );
  return await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}
