// Fault injection for one node. `down` is handled by the server (it closes the listener); every
// other fault wraps the normal answer. Hung and delayed requests are released when the fault
// changes (they then run normally) or when the node closes (bare 503), so nothing leaks past a test.

import { bare, jsonError } from "./http.ts";
import { matchPattern } from "./router.ts";
import type { Fault, FaultScope } from "./types.ts";

interface Active {
  fault: Fault;
  scope: FaultScope;
  affected: number;
}

/** The fault switchboard of one node. */
export interface FaultState {
  active: Active | null;
  waiting: Set<(closed: boolean) => void>;
  timers: Set<ReturnType<typeof setTimeout>>;
  closed: boolean;
}

/** A switchboard with no fault. */
export function createFaults(): FaultState {
  return { active: null, waiting: new Set(), timers: new Set(), closed: false };
}

/** Sets or clears the fault; requests held by `hang` or `slow` continue normally. */
export function setFaultState(state: FaultState, fault: Fault | null, scope: FaultScope = {}) {
  state.active = fault ? { fault, scope, affected: 0 } : null;
  release(state, false);
}

/** Releases everything held; with `closed`, held requests answer a bare 503. */
export function release(state: FaultState, closed: boolean): void {
  if (closed) state.closed = true;
  for (const resolve of [...state.waiting]) resolve(closed);
  state.waiting.clear();
  if (closed) {
    for (const timer of state.timers) clearTimeout(timer);
    state.timers.clear();
  }
}

function wait(state: FaultState, ms: number | null): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (closed: boolean) => {
      if (timer !== undefined) {
        clearTimeout(timer);
        state.timers.delete(timer);
      }
      state.waiting.delete(done);
      resolve(closed);
    };
    state.waiting.add(done);
    if (ms !== null) {
      timer = setTimeout(() => done(false), ms);
      state.timers.add(timer!);
    }
  });
}

function hugeBody(bytes: number): Response {
  const head = new TextEncoder().encode('{"data":"');
  const tail = new TextEncoder().encode('"}');
  const fill = Math.max(0, bytes - head.length - tail.length);
  const chunk = new Uint8Array(64 * 1024).fill(0x78);
  let sent = -1;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent < 0) {
        controller.enqueue(head);
        sent = 0;
      } else if (sent < fill) {
        const n = Math.min(chunk.length, fill - sent);
        controller.enqueue(chunk.subarray(0, n));
        sent += n;
      } else {
        controller.enqueue(tail);
        controller.close();
      }
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "application/json",
      "content-length": String(head.length + fill + tail.length),
    },
  });
}

async function truncated(response: Response): Promise<Response> {
  const body = new Uint8Array(await response.arrayBuffer());
  const cut = body.length >= 2
    ? body.slice(0, Math.floor(body.length / 2))
    : new TextEncoder().encode('{"data":{"tr');
  return new Response(cut, {
    status: response.status,
    headers: { "content-type": "application/json" },
  });
}

/** Runs `next` under the active fault (if it applies to `method` and `path`). */
export async function withFault(
  state: FaultState,
  method: string,
  path: string,
  next: () => Promise<Response>,
): Promise<Response> {
  const active = state.active;
  if (!active || active.fault.kind === "down") return next();
  if (active.scope.pathPrefix && !path.startsWith(active.scope.pathPrefix)) return next();
  if (active.scope.method && active.scope.method !== method) return next();
  const fault = active.fault;
  if (fault.kind === "missingRoute" && !matchPattern(fault.path, path)) return next();
  active.affected++;
  if (active.scope.times !== undefined && active.affected >= active.scope.times) {
    state.active = null;
  }
  switch (fault.kind) {
    case "slow":
      return (await wait(state, fault.delayMs)) ? bare(503) : next();
    case "hang":
      return (await wait(state, null)) ? bare(503) : next();
    case "status":
      return jsonError(fault.status, `simulated fault: HTTP ${fault.status}`);
    case "malformed":
      return new Response('{"data": <<not json>>', {
        headers: { "content-type": "application/json" },
      });
    case "truncated":
      return truncated(await next());
    case "huge":
      return hugeBody(fault.bytes);
    case "flapping":
      return Math.floor((active.affected - 1) / Math.max(1, fault.every)) % 2 === 0
        ? jsonError(503, "simulated fault: flapping (failing phase)")
        : next();
    case "missingRoute":
      return bare(404);
  }
}
