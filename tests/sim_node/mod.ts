// The simulated Calimero node used by end-to-end tests, benchmarks and the demo: a `Deno.serve`
// server with in-memory state that speaks the node's HTTP API as core does, quirks included. Start one per test with
// `startSimNode()`, drive it over HTTP, steer it (faults, tokens, installs) through the handle.

import { SAMPLE_APP_NAMES, SAMPLE_APPS, samplePackage } from "./apps/mod.ts";
import {
  type AuthState,
  type AuthStats,
  createAuth,
  expireAll,
  issuePair,
  type KeyScope,
  revokeAll,
  type TokenPair,
} from "./auth.ts";
import { createContext, moveContextApp } from "./contexts.ts";
import { createEventStreams, emitContextEvent } from "./events.ts";
import { createFaults, release, setFaultState } from "./faults.ts";
import { createGroup } from "./groups.ts";
import { base58Id, didKey } from "./ids.ts";
import { installApp, upgradeApp } from "./install.ts";
import { jsonBytes } from "./json.ts";
import { network } from "./network.ts";
import { appRoutes } from "./routes/apps.ts";
import { authRoutes } from "./routes/auth.ts";
import { blobRoutes } from "./routes/blobs.ts";
import { contextRoutes } from "./routes/contexts.ts";
import { eventRoutes } from "./routes/events.ts";
import { groupRoutes } from "./routes/groups.ts";
import { jsonrpcRoutes } from "./routes/jsonrpc.ts";
import { registryRoutes } from "./routes/registry.ts";
import { handler, listen } from "./server.ts";
import { createState, type Identity, type NodeState } from "./state.ts";
import type {
  CoreGeneration,
  CustomApp,
  Fault,
  FaultScope,
  InstallResult,
  RequestLogEntry,
  RpcErrorBody,
  SampleAppName,
  SimNodeOptions,
} from "./types.ts";

export type * from "./types.ts";
export type { AuthStats, Identity, KeyScope, TokenPair };
export { SAMPLE_APP_NAMES };
export { fail, panic } from "./guest.ts";
export { ABI_SECTION, readCustomSection, wasmModule } from "./wasm.ts";
export { parseLossless, stringifyExact } from "./json.ts";

/** Options of `SimNode.createContext`. */
export interface SimContextOptions {
  /** Namespace or group id; default the node's first namespace of the app (created if none). */
  groupId?: string;
  name?: string;
  serviceName?: string;
  /** Also register this alias for the new context. */
  alias?: string;
  /** `init` arguments by name (sent as UTF-8 JSON bytes, like `initializationParams`). */
  args?: Record<string, unknown>;
}

/** A running simulated node and its test controls. */
export interface SimNode {
  /** Base URL including the path prefix, no trailing slash. */
  url: string;
  port: number;
  /** Stops the listener and releases held requests; idempotent. */
  close(): Promise<void>;
  /**
   * Injects a fault (see `Fault`), optionally narrowed by `scope`; null clears it. Takes effect at
   * once, except that leaving `down` may need an event-loop turn to listen again: await the
   * returned promise before the next request then.
   */
  setFault(fault: Fault | null, scope?: FaultScope): Promise<void>;
  /** The fault in force, if any (a `times`-limited fault clears itself). */
  readonly fault: Fault | null;
  /** Every request received (prefix and query stripped), oldest first. */
  requests: RequestLogEntry[];
  /**
   * Counts logged requests (inside the prefix) whose path starts with `filter`, or that match
   * "METHOD /path-prefix"; all when omitted.
   */
  counts(filter?: string): number;
  /** Empties `requests` (the same array object). */
  resetLog(): void;
  /** Auth counters (all zero in proxy mode). */
  stats: AuthStats;
  /** Installs a sample app (at `version`, default its first) or a custom app, bypassing HTTP. */
  install(app: SampleAppName | CustomApp, opts?: { version?: string }): InstallResult;
  /** Replaces an installed app with a new version/ABI/bytecode, keeping its id. */
  upgrade(
    applicationId: string,
    next: Partial<CustomApp>,
    opts?: { migrateContexts?: boolean },
  ): InstallResult;
  /**
   * Moves a context to another installed application, as a context's application update to a new id does; the
   * context's subscribers get `AppVersionChanged` (core crates/context/src/handlers/update_application/mod.rs: only
   * when the id changes, so `upgrade`, which keeps the id, sends none).
   */
  moveContext(contextId: string, applicationId: string): void;
  /** Ends every open event stream, as a dropped connection does (sessions and subscriptions stay). */
  dropEventStreams(): void;
  /**
   * Who the event stream's caller is to the membership check: the node owner (default) observes any context, a
   * key-authenticated member only those this node holds (crates/server/src/ws/subscribe.rs).
   */
  setEventObserver(observer: "owner" | "member"): void;
  /** Open event streams (connections) right now. */
  readonly openEventStreams: number;
  /** Removes an app (its contexts stay and then answer `ApplicationNotInstalled`). */
  uninstall(applicationId: string): void;
  /** The id a sample app has (the same on every node: it hashes package and signer). */
  appId(name: SampleAppName): string;
  /** Creates a namespace bound to the app; returns its id. */
  createNamespace(applicationId: string, name?: string): string;
  /** Creates a context (running `init`); throws with the node's message on failure. */
  createContext(applicationId: string, opts?: SimContextOptions): {
    contextId: string;
    memberPublicKey: string;
    groupId: string;
  };
  /** Points a context alias at a context (replacing an existing alias). */
  setAlias(alias: string, contextId: string): void;
  /** The live app state of a context (e.g. `{ items: Map }` for kv-store), for assertions. */
  contextState(contextId: string): Record<string, unknown> | undefined;
  /** Forces a JSON-RPC error (e.g. `Uninitialized`, `GroupKeyPending`) for matching calls. */
  forceRpcError(
    error: RpcErrorBody | null,
    scope?: { method?: string; contextId?: string; times?: number },
  ): void;
  /**
   * Emits `count` events of a context at once, from this node, as core's node does under load: a burst past its
   * broadcast buffer (256) loses the rest without a gap in the ids (see events.ts). `StateMutation` carries no app
   * events; `SyncStatus` alternates syncing and idle, as sync sessions do (core sync/session.rs).
   */
  emitEvents(contextId: string, type: "StateMutation" | "SyncStatus", count: number): void;
  /** Readiness answer: "ready" (200), or "starting" / "shutting_down" (503), as core's probe labels them. */
  setReadiness(status: "ready" | "starting" | "shutting_down"): void;
  /** Connected peers `GET /peers` reports (null: the other simulated nodes running in this process). */
  setPeers(count: number | null): void;
  /** Health answer: "alive" (200) or "store_unavailable" (503). */
  setHealth(status: "alive" | "store_unavailable"): void;
  /** Whether `GET /identity` answers (404 without an identity). */
  setIdentity(present: boolean): void;
  /** The node's identity (also when `GET /identity` is switched off). */
  identity: Identity;
  /**
   * Embedded auth: a fresh token pair as a login would give (for handoff/env token tests), or with
   * `permissions` a scoped client key's pair (e.g. `APP_CLIENT_PERMISSIONS`: no `admin`, so no ABI route).
   */
  issueTokens(permissions?: readonly string[], scope?: KeyScope): TokenPair;
  /** Embedded auth: every access token issued so far is expired from now on. */
  expireTokens(): void;
  /** Embedded auth: every token family issued so far is revoked (403 `token_revoked`). */
  revokeTokens(): void;
  /** Embedded auth: the key store forgets every token, as after a reset (a bare 401 for each). */
  forgetTokens(): void;
  /** The node's internal state, for cases no helper covers (read it, avoid relying on its shape). */
  state: NodeState;
}

let instances = 0;

/** `MERO_SIM_CORE=newer` runs every simulated node as the newer core, so a whole suite can be run against it. */
function defaultCore(): CoreGeneration {
  // `deno task sim-node` runs without env access: then the default generation.
  const allowed =
    Deno.permissions.querySync({ name: "env", variable: "MERO_SIM_CORE" }).state === "granted";
  return allowed && Deno.env.get("MERO_SIM_CORE") === "newer" ? "newer" : "051f0848";
}

function needAuth(auth: AuthState | null): AuthState {
  if (!auth) throw new Error("This simulated node runs without auth: start it with `auth`.");
  return auth;
}

/** Starts a simulated node; with no options: random port, proxy mode, every sample app installed. */
export function startSimNode(options: SimNodeOptions = {}): Promise<SimNode> {
  return new Promise((resolve) => resolve(buildSimNode(options)));
}

function buildSimNode(options: SimNodeOptions): SimNode {
  const seed = options.seed ?? `sim-${++instances}`;
  const hostname = options.hostname ?? "127.0.0.1";
  const prefix = (options.pathPrefix ?? "").replace(/\/+$/, "");
  const node = createState(seed, {
    keepAbiDocs: options.keepAbiDocs ?? false,
    abiRoute: options.abiRoute ?? true,
    withIdentity: options.withIdentity ?? "namespace",
    installUrlChecks: options.installUrlChecks ?? true,
  });
  if (options.auth) node.auth = createAuth(options.auth, seed);
  node.core = options.core ?? defaultCore();
  if (options.joinLookupMs !== undefined) node.joinLookupMs = options.joinLookupMs;
  if (options.namespaceJoinMs !== undefined) node.namespaceJoinMs = options.namespaceJoinMs;
  if (options.syncDelayMs !== undefined) node.syncDelayMs = options.syncDelayMs;
  network.nodes.add(node);
  const streams = node.events = createEventStreams(node);
  const faults = createFaults();
  const log: RequestLogEntry[] = [];
  const routes = [
    ...appRoutes,
    ...contextRoutes,
    ...groupRoutes,
    ...blobRoutes,
    ...jsonrpcRoutes,
    ...registryRoutes,
    ...eventRoutes,
    ...(options.auth ? authRoutes : []),
  ];
  const listener = listen(
    hostname,
    options.port ?? 0,
    handler({ node, faults, routes, prefix, log }),
  );
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const url = `http://${host}:${listener.port}${prefix}`;
  const emptyStats: AuthStats = { refreshes: 0, logins: 0, reuseDetected: 0, failedLogins: 0 };

  const installSample = (name: SampleAppName, version?: string) => {
    const sample = SAMPLE_APPS[name];
    const v = version ?? sample.versions[0];
    const spec = sample.build({ version: v });
    const pkg = samplePackage(name);
    spec.source = `${url}/artifacts/${pkg}/${v}/${pkg}-${v}.mpk`;
    return installApp(node, spec);
  };
  for (
    const name of options.apps === undefined || options.apps === "all"
      ? SAMPLE_APP_NAMES
      : options.apps
  ) {
    installSample(name);
  }

  let closed = false;
  const sim: SimNode = {
    url,
    port: listener.port,
    async close() {
      if (closed) return;
      closed = true;
      network.nodes.delete(node);
      release(faults, true);
      streams.detach();
      await listener.close();
    },
    setFault(fault, scope) {
      if (closed) return Promise.resolve();
      setFaultState(faults, fault, scope);
      if (fault?.kind !== "down") return listener.up();
      streams.dropAll();
      listener.down();
      return Promise.resolve();
    },
    get fault() {
      return faults.active?.fault ?? null;
    },
    requests: log,
    counts(filter) {
      const m = /^([A-Z]+) (.*)$/.exec(filter ?? "");
      return log.filter((r) =>
        !r.outsidePrefix &&
        (m ? r.method === m[1] && r.path.startsWith(m[2]) : r.path.startsWith(filter ?? ""))
      ).length;
    },
    resetLog() {
      log.length = 0;
    },
    get stats() {
      return node.auth?.stats ?? emptyStats;
    },
    install: (app, opts) =>
      typeof app === "string" ? installSample(app, opts?.version) : installApp(node, app),
    upgrade(applicationId, next, opts) {
      const result = upgradeApp(node, applicationId, next);
      if (opts?.migrateContexts) {
        const version = node.apps.get(applicationId)?.version ?? null;
        for (const ctx of node.contexts.values()) {
          if (ctx.core.applicationId === applicationId) ctx.core.applicationVersion = version;
        }
      }
      return result;
    },
    moveContext(contextId, applicationId) {
      const ctx = node.contexts.get(contextId);
      const app = node.apps.get(applicationId);
      if (!ctx || !app) {
        throw new Error(`No context ${contextId} or app ${applicationId} on this node.`);
      }
      moveContextApp(ctx.core, app);
    },
    dropEventStreams: () => streams.dropAll(),
    emitEvents(contextId, type, count) {
      for (let i = 0; i < count; i++) {
        const data = type === "SyncStatus"
          ? { syncState: { state: i % 2 === 0 ? "syncing" : "idle" }, failureCount: 0 }
          : { newRoot: base58Id(`burst:${contextId}:${i}`), events: [] };
        emitContextEvent(contextId, type, data, { only: "origin", origin: node });
      }
    },
    setEventObserver(observer) {
      streams.observer = observer;
    },
    get openEventStreams() {
      return streams.open.size;
    },
    uninstall(applicationId) {
      node.apps.delete(applicationId);
    },
    appId: (name) => base58Id(`app:${samplePackage(name)}\0${didKey(samplePackage(name))}`),
    createNamespace: (applicationId, name) => createGroup(node, { applicationId, name }).id,
    createContext(applicationId, opts = {}) {
      const groupId = opts.groupId ?? firstNamespace(applicationId);
      const result = createContext(node, {
        applicationId,
        groupId,
        initializationParams: opts.args ? jsonBytes(opts.args) : [],
        serviceName: opts.serviceName,
        name: opts.name,
      });
      if ("status" in result) throw new Error(`createContext failed: ${result.message}`);
      if (opts.alias) node.aliases.set(opts.alias, result.contextId);
      return { contextId: result.contextId, memberPublicKey: result.memberPublicKey, groupId };
    },
    setAlias(alias, contextId) {
      node.aliases.set(alias, contextId);
    },
    contextState: (contextId) => node.contexts.get(contextId)?.core.box.state,
    forceRpcError(error, scope = {}) {
      node.rpcOverride = error ? { error, ...scope } : null;
    },
    setReadiness(status) {
      node.readiness = status;
    },
    setPeers(count) {
      node.peers = count;
    },
    setHealth(status) {
      node.health = status;
    },
    setIdentity(present) {
      node.hasIdentity = present;
    },
    identity: node.identity,
    issueTokens: (permissions, scope) => {
      const auth = needAuth(node.auth);
      return issuePair(auth, auth.nextFamily++, permissions, scope);
    },
    expireTokens: () => expireAll(needAuth(node.auth)),
    revokeTokens: () => revokeAll(needAuth(node.auth)),
    forgetTokens: () => needAuth(node.auth).tokens.clear(),
    state: node,
  };

  function firstNamespace(applicationId: string): string {
    const app = node.apps.get(applicationId);
    for (const id of node.namespaces) {
      const group = network.groups.get(id);
      if (group && !group.deleted && group.targetApplicationId === applicationId) return id;
    }
    return sim.createNamespace(applicationId, app?.package ?? applicationId);
  }
  return sim;
}
