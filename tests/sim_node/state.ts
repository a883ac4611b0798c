// One simulated node's in-memory state: installed apps and their blobs, the contexts and namespaces
// it holds, aliases, its identity and the per-test switches. Operations live in their own modules.

import type { AuthState } from "./auth.ts";
import type { EventStreams } from "./events.ts";
import { base58Id, hexId } from "./ids.ts";
import type { ContextCore } from "./network.ts";
import type { CoreGeneration, CustomApp, MethodImpl, RpcErrorBody } from "./types.ts";

/** An ABI-bearing unit of an installed app: the whole app, or one service. */
export interface Unit {
  service: string | null;
  abiText: string | null;
  methods: Record<string, MethodImpl>;
  bytecode: string;
  compiled: string;
  wasm: Uint8Array<ArrayBuffer>;
}

/** An installed application. */
export interface InstalledApp {
  id: string;
  spec: CustomApp;
  package?: string;
  version?: string;
  signerId?: string;
  source: string;
  metadata: Uint8Array;
  size: number;
  /** In order; a single unit with `service: null` for an app without services. */
  units: Unit[];
  hasServices: boolean;
  /** The record's blobs: a bundle's archive (and a zero compiled blob), else the single unit's wasm. */
  blob: { bytecode: string; compiled: string };
  /** The `.mpk` archive of a bundle install, or null for a raw wasm app. */
  archive: Uint8Array | null;
}

/** A context as this node holds it. */
export interface LocalContext {
  core: ContextCore;
  memberPublicKey: string;
  identities: string[];
  /**
   * When this node adopted the context's state (ms since the epoch): a context it follows by itself after joining
   * a namespace holds no state until it syncs, and `execute` answers `Uninitialized` before then (core
   * crates/context/primitives/src/messages.rs ExecuteError::Uninitialized; auto_follow.rs).
   */
  syncedAt: number;
  /**
   * This node left the context: it stays listed with its state, but this node's identities there are gone, so
   * calls find no owned identity (core crates/context/src/handlers/leave_context.rs); join_context clears it.
   */
  left: boolean;
}

/** The node's own identity. */
export interface Identity {
  accountId: string;
  deviceId: string;
  publicKey: string;
  accountRootPublicKey: string;
}

/** A forced JSON-RPC error, for the error types the sim has no natural cause for. */
export interface RpcOverride {
  error: RpcErrorBody;
  method?: string;
  contextId?: string;
  times?: number;
}

/** Everything one simulated node knows. */
export interface NodeState {
  seed: string;
  keepAbiDocs: boolean;
  abiRoute: boolean;
  /** Refuse non-public install URLs, as nodes since 0.11.0-rc.10 do (false = an older node). */
  installUrlChecks: boolean;
  /** The core this node follows (`SimNodeOptions.core`). */
  core: CoreGeneration;
  identity: Identity;
  /**
   * Whether `GET /identity` answers: always, never, or (core's way, the default) once the node takes part in a
   * namespace, when core mints its device and account root (get_node_identity.rs).
   */
  hasIdentity: boolean | "namespace";
  health: "alive" | "store_unavailable";
  /** The node's lifecycle, as core's readiness probe labels it (crates/server/src/lib.rs `NodeReadiness`). */
  readiness: "ready" | "starting" | "shutting_down";
  /** Connected peers, when a test sets them; otherwise the other simulated nodes running in this process. */
  peers: number | null;
  apps: Map<string, InstalledApp>;
  blobs: Map<string, { bytes: Uint8Array; contextId?: string }>;
  contexts: Map<string, LocalContext>;
  aliases: Map<string, string>;
  /** Namespace ids this node is a member of. */
  namespaces: Set<string>;
  counter: number;
  rpcOverride: RpcOverride | null;
  /** The node's SSE sessions and open streams (set by mod.ts). */
  events?: EventStreams;
  /** Embedded auth state; null in proxy mode. */
  auth: AuthState | null;
  /** How long join_context looks for an unknown context's group before failing (core GROUP_LOOKUP_TIMEOUT 30 s). */
  joinLookupMs: number;
  /** How long a namespace join takes to answer (a real merod: about 2 s). */
  namespaceJoinMs: number;
  /** How long a context this node follows by itself takes to sync (the sync driver ticks every 10 s in core). */
  syncDelayMs: number;
}

/** A fresh node state; every node-local id derives from `seed`. */
export function createState(
  seed: string,
  options: {
    keepAbiDocs: boolean;
    abiRoute: boolean;
    withIdentity: boolean | "namespace";
    installUrlChecks: boolean;
  },
): NodeState {
  return {
    seed,
    keepAbiDocs: options.keepAbiDocs,
    abiRoute: options.abiRoute,
    installUrlChecks: options.installUrlChecks,
    core: "051f0848",
    identity: {
      accountId: hexId(`account:${seed}`),
      // Hex, like the account and root key (core get_node_identity.rs); the public key is base58.
      deviceId: hexId(`device:${seed}`),
      publicKey: base58Id(`identity:${seed}`),
      accountRootPublicKey: hexId(`account-root:${seed}`),
    },
    hasIdentity: options.withIdentity,
    health: "alive",
    readiness: "ready",
    peers: null,
    apps: new Map(),
    blobs: new Map(),
    contexts: new Map(),
    aliases: new Map(),
    namespaces: new Set(),
    counter: 0,
    rpcOverride: null,
    auth: null,
    joinLookupMs: 30_000,
    namespaceJoinMs: 2_000,
    syncDelayMs: 10_000,
  };
}

/** A new node-local seed string for ids of `kind` (stable for a given node seed and order). */
export function nextSeed(state: NodeState, kind: string): string {
  state.counter++;
  return `${kind}:${state.seed}:${state.counter}`;
}
