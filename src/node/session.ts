// The lazy session: one per process, in front of every node request. The first request
// connects (discover, pick auth, build the client); success is kept for the process lifetime, a failure fails
// only that request and the next one tries again, so a node started later needs no restart.

import type { Config } from "../config/config.ts";
import type { DiscoverySource } from "./discovery.ts";
import type { MeroClient } from "../mero/mod.ts";
import { type AuthMode, connectNode, type NodeConnection } from "./node.ts";

/** What `node_status` and `doctor` show about the connection; every field is null until the first success. */
export interface SessionInfo {
  url: string | null;
  nodeName: string | null;
  discoverySource: DiscoverySource | null;
  authMode: AuthMode | null;
}

/** The process-wide handle on the node. `admin` and `rpc` are the client's namespaces, connecting on first use. */
export interface Session {
  /** Shaped like `MeroClient.admin`: each call awaits the connection, then calls through. */
  readonly admin: MeroClient["admin"];
  /** Shaped like `MeroClient.rpc`: each call awaits the connection, then calls through. */
  readonly rpc: MeroClient["rpc"];
  /** The connection's facts, or placeholders (nulls) while none has succeeded. */
  info(): SessionInfo;
  /** Forces the connection (discovery and auth set-up, no node request) and returns its facts; throws like discovery. */
  connect(): Promise<SessionInfo>;
  /** The memoised connection, connecting first when needed (for callers that need the client itself). */
  connection(): Promise<NodeConnection>;
  /**
   * Registers `listener` for the first node call made through `admin`/`rpc` that succeeds (the node answered):
   * the catalog arms its poll there. Called once; a listener added after that moment is called right away
   * (in a microtask). Returns a function that unregisters it.
   */
  onFirstSuccess(listener: (info: SessionInfo) => void): () => void;
}

const PLACEHOLDERS: SessionInfo = {
  url: null,
  nodeName: null,
  discoverySource: null,
  authMode: null,
};

type Namespace = "admin" | "rpc";

/** Creates the lazy session; `connect` is replaceable for tests. Nothing contacts the node until a call. */
export function createSession(
  config: Config,
  connect: (config: Config) => Promise<NodeConnection> = connectNode,
): Session {
  let pending: Promise<NodeConnection> | null = null;
  let established: NodeConnection | null = null;
  let succeeded = false;
  const listeners = new Set<(info: SessionInfo) => void>();

  function connection(): Promise<NodeConnection> {
    if (pending !== null) return pending;
    const attempt: Promise<NodeConnection> = connect(config).then(
      (conn) => {
        established = conn;
        return conn;
      },
      (err) => {
        if (pending === attempt) pending = null;
        throw err;
      },
    );
    pending = attempt;
    return attempt;
  }

  function info(): SessionInfo {
    if (established === null) return { ...PLACEHOLDERS };
    const { url, nodeName, discoverySource, authMode } = established;
    return { url, nodeName, discoverySource, authMode };
  }

  function markSuccess(): void {
    if (succeeded) return;
    succeeded = true;
    const now = info();
    for (const listener of [...listeners]) listener(now);
    listeners.clear();
  }

  function namespace<K extends Namespace>(key: K): MeroClient[K] {
    const methods = new Map<string, (...args: unknown[]) => Promise<unknown>>();
    return new Proxy({} as MeroClient[K], {
      get(_target, prop) {
        // Not a thenable, not iterable: only string-named methods exist.
        if (typeof prop !== "string" || prop === "then") return undefined;
        let method = methods.get(prop);
        if (method === undefined) {
          method = async (...args: unknown[]) => {
            const target = (await connection()).client[key] as unknown as Record<string, unknown>;
            const fn = target[prop];
            if (typeof fn !== "function") {
              throw new TypeError(`The node client has no method "${key}.${prop}".`);
            }
            const result = await fn.apply(target, args);
            markSuccess();
            return result;
          };
          methods.set(prop, method);
        }
        return method;
      },
    });
  }

  return {
    admin: namespace("admin"),
    rpc: namespace("rpc"),
    info,
    connect: async () => {
      await connection();
      return info();
    },
    connection,
    onFirstSuccess(listener) {
      if (succeeded) {
        queueMicrotask(() => listener(info()));
        return () => {};
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
