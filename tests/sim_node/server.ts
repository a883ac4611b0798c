// The request pipeline and the listener. Every request is logged (path without prefix or query),
// then runs under the active fault, then the auth guard (embedded mode), then the router. `down`
// closes the listener, so a fetch fails as against a stopped node; `up` listens on the same port.

import { guard, outOfScope } from "./auth.ts";
import { type FaultState, withFault } from "./faults.ts";
import { bare, text } from "./http.ts";
import { dispatch, type Route } from "./router.ts";
import type { NodeState } from "./state.ts";
import type { RequestLogEntry } from "./types.ts";

/** What the pipeline needs. */
export interface Pipeline {
  node: NodeState;
  faults: FaultState;
  routes: Route[];
  prefix: string;
  log: RequestLogEntry[];
}

/** Core's public admin routes: `/health` and `/ready` answer without auth (crates/server/src/admin/service.rs). */
const PUBLIC = new Set(["/admin-api/health", "/admin-api/ready"]);

const guarded = (path: string) =>
  (path.startsWith("/admin-api/") && !PUBLIC.has(path)) || path === "/jsonrpc" ||
  path === "/sse" || path.startsWith("/sse/");

/**
 * Paths served at the node's root whatever the prefix: the embedded auth router is nested at `/auth` and merged
 * at the root (core crates/auth/src/api/routes.rs, crates/server/src/lib.rs), and `/sse` takes no prefix
 * (crates/server/src/sse.rs); only `/admin-api`, `/jsonrpc` and `/ws` do (admin/service.rs, jsonrpc.rs, ws.rs).
 */
const atRoot = (path: string) =>
  path === "/auth" || path.startsWith("/auth/") || path.startsWith("/admin/") || path === "/sse" ||
  path.startsWith("/sse/");

/** The request handler of one node. */
export function handler(p: Pipeline): (req: Request) => Promise<Response> {
  return async (req) => {
    const url = new URL(req.url);
    let path = url.pathname;
    if (p.prefix && !atRoot(path)) {
      if (path !== p.prefix && !path.startsWith(`${p.prefix}/`)) {
        p.log.push({ method: req.method, path, at: Date.now(), outsidePrefix: true });
        return bare(404);
      }
      path = path.slice(p.prefix.length) || "/";
      if (atRoot(path)) {
        // `/node1/auth/token` does not exist on a prefixed node: `/auth` is only at the root.
        p.log.push({ method: req.method, path: url.pathname, at: Date.now(), outsidePrefix: true });
        return bare(404);
      }
    }
    const traceparent = req.headers.get("traceparent");
    p.log.push({
      method: req.method,
      path,
      at: Date.now(),
      ...(traceparent ? { traceparent } : {}),
    });
    try {
      return await withFault(p.faults, req.method, path, () => {
        if (p.node.auth && guarded(path)) {
          const denied = guard(p.node.auth, req, path) ??
            (p.node.core === "newer" ? outOfScope(p.node.auth, req, path) : null);
          if (denied) return Promise.resolve(denied);
        }
        return dispatch(p.routes, p.node, req, url, path);
      });
    } catch (error) {
      return text(500, `simulated node bug: ${(error as Error).stack ?? error}`);
    }
  };
}

/** One listener that can be closed (node down) and reopened on the same port. */
export interface Listener {
  port: number;
  /** Listens again; resolves once listening (the old socket may need an event-loop turn to go). */
  up(): Promise<void>;
  /** Stops listening at once: new connections are refused. */
  down(): void;
  isUp(): boolean;
  close(): Promise<void>;
}

/** Listens on `hostname:port` (0 = random) with `handle`. */
export function listen(
  hostname: string,
  port: number,
  handle: (req: Request) => Promise<Response>,
): Listener {
  const finished: Promise<void>[] = [];
  let abort: AbortController | null = null;
  let wantUp = true;
  let pending: Promise<void> | null = null;
  const open = (at: number): number => {
    const controller = new AbortController();
    const server = Deno.serve(
      { hostname, port: at, signal: controller.signal, onListen() {} },
      handle,
    );
    abort = controller;
    finished.push(server.finished);
    return server.addr.port;
  };
  const tryOpen = (): boolean => {
    try {
      open(listener.port);
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.AddrInUse) return false;
      throw error;
    }
  };
  const retry = async (): Promise<void> => {
    const deadline = Date.now() + 5000;
    while (wantUp && !abort) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (!wantUp || tryOpen()) return;
      if (Date.now() > deadline) throw new Error(`port ${listener.port} stayed busy for 5 s`);
    }
  };
  const listener: Listener = {
    port: open(port),
    up() {
      wantUp = true;
      if (abort) return Promise.resolve();
      if (tryOpen()) return Promise.resolve();
      pending ??= retry().finally(() => pending = null);
      return pending;
    },
    down() {
      wantUp = false;
      abort?.abort();
      abort = null;
    },
    isUp: () => abort !== null,
    async close() {
      listener.down();
      await pending?.catch(() => {});
      await Promise.all(finished);
    },
  };
  return listener;
}
