// Runs an app method in a context, as `POST /jsonrpc` `execute` does: resolves the context, app,
// unit and method, checks arguments like serde, runs the implementation against a copy of the state
// (committed only on success) and turns failures into the node's JSON-RPC error bodies.

import { findMethod, manifestOf } from "./abi.ts";
import { checkArgs, defaultValue } from "./abi_check.ts";
import { functionCallErrorData, GuestError, GuestPanic } from "./guest.ts";
import { emitContextEvent } from "./events.ts";
import { base58Id } from "./ids.ts";
import { jsonBytes } from "./json.ts";
import type { InstalledApp, LocalContext, NodeState, Unit } from "./state.ts";
import type { CallEnv, RpcErrorBody } from "./types.ts";

/** The outcome of a call: `{ output }` or the JSON-RPC error. */
export type CallOutcome = { output: unknown } | { error: RpcErrorBody };

/** The unit a context runs: its service, the sole service, or the app's only unit. */
export function unitFor(app: InstalledApp, service: string | null): Unit | undefined {
  if (service !== null) return app.units.find((u) => u.service === service);
  return app.units.length === 1 ? app.units[0] : undefined;
}

function overridden(state: NodeState, contextId: string, method: string): RpcErrorBody | null {
  const o = state.rpcOverride;
  if (!o || (o.method && o.method !== method) || (o.contextId && o.contextId !== contextId)) {
    return null;
  }
  if (o.times !== undefined && --o.times <= 0) state.rpcOverride = null;
  return o.error;
}

/** Runs `method` of `unit` with `args` on `ctx`'s state; throws guest failures. */
export function runMethod(
  unit: Unit,
  ctx: LocalContext,
  state: NodeState,
  method: string,
  args: Record<string, unknown>,
): unknown {
  const manifest = manifestOf(unit.abiText);
  const declared = findMethod(manifest, method);
  const impl = unit.methods[method];
  if (!declared && !impl) {
    throw new GuestPanic(`method "${method}" is not exported by this application`);
  }
  if (declared && manifest) {
    const problem = checkArgs(manifest, declared, args);
    if (problem) throw new GuestPanic(`Failed to deserialize input from JSON: ${problem}`);
  }
  const box = ctx.core.box;
  const readOnly = declared?.intent === "read_only";
  const working = readOnly ? box.state : structuredClone(box.state);
  const emitted: { kind: string; data: number[]; handler: null }[] = [];
  const env: CallEnv = {
    contextId: ctx.core.id,
    state: working,
    executor: ctx.memberPublicKey,
    executorAccount: state.identity.accountId,
    now: Date.now(),
    emit: (kind, data) =>
      void emitted.push({ kind, data: data === undefined ? [] : jsonBytes(data), handler: null }),
  };
  let output: unknown;
  if (impl) output = impl(args, env);
  else {
    const params = declared?.params ?? [];
    const echoes = params.length === 1 &&
      JSON.stringify(params[0].type) === JSON.stringify(declared?.returns);
    output = echoes
      ? args[params[0].name] ?? null
      : declared?.returns_nullable
      ? null
      : defaultValue(manifest!, declared?.returns);
  }
  if (!readOnly) {
    const changed = fingerprint(working) !== fingerprint(box.state);
    box.state = working;
    if (changed) box.version++;
    const mutation = {
      newRoot: base58Id(`state:${ctx.core.id}:${box.version}`),
      events: emitted,
    };
    // On the node that executed: a StateMutation when the call emitted app events or changed the root (core
    // crates/context/src/handlers/execute/mod.rs).
    if (emitted.length > 0 || changed) {
      emitContextEvent(ctx.core.id, "StateMutation", mutation, { only: "origin", origin: state });
    }
    // On a peer: only for a delta that carries app events. The author attaches its events blob to the
    // broadcast delta only when there are some (execute/mod.rs), and a receiving node emits
    // StateMutation only `if let Some(payload) = events_payload` (crates/node/src/handlers/state_delta/mod.rs:
    // 757, 833-835): a peer's write without app events is no event at all on this node.
    // A real merod (051f0848) tells a peer's write in two frames about a millisecond apart with one root: first
    // without events, then with the app's (seen on two merods: tests/real_nodes/differential.ts).
    if (emitted.length > 0) {
      const bare = { newRoot: mutation.newRoot, events: [] };
      emitContextEvent(ctx.core.id, "StateMutation", bare, { only: "peers", origin: state });
      emitContextEvent(ctx.core.id, "StateMutation", mutation, { only: "peers", origin: state });
    }
  }
  return output === undefined ? null : output;
}

/** A context state as text that changes whenever the state does (its Maps, Sets and big integers included). */
function fingerprint(state: Record<string, unknown>): string {
  return JSON.stringify(
    state,
    (_key, value) =>
      value instanceof Map
        ? { map: [...value] }
        : value instanceof Set
        ? { set: [...value] }
        : typeof value === "bigint"
        ? `${value}n`
        : value,
  );
}

/** Executes a JSON-RPC `execute` call after its params were checked. */
export function execute(
  state: NodeState,
  contextId: string,
  method: string,
  argsJson: unknown,
): CallOutcome {
  const forced = overridden(state, contextId, method);
  if (forced) return { error: forced };
  const ctx = state.contexts.get(contextId);
  // The server looks for the node's own identity in the context before anything else; an unknown, left or
  // never-joined context has none (core crates/server/src/execute.rs, execute_request).
  if (!ctx || ctx.left) {
    return {
      error: { type: "FunctionCallError", data: "No owned identity found for this context" },
    };
  }
  // Followed but not synced yet: no state to run against (core ExecuteError::Uninitialized, "context state not
  // initialized, awaiting state sync": crates/context/primitives/src/messages.rs).
  if (ctx.syncedAt > Date.now()) return { error: { type: "Uninitialized" } };
  const app = state.apps.get(ctx.core.applicationId);
  if (!app) return { error: { type: "ApplicationNotInstalled" } };
  const unit = unitFor(app, ctx.core.serviceName);
  // A server-level failure carries no detail: `err` is `#[serde(skip)]` (core
  // crates/server/primitives/src/jsonrpc.rs, InternalError).
  if (!unit) return { error: { type: "InternalError", data: {} } };
  if (argsJson === null || typeof argsJson !== "object" || Array.isArray(argsJson)) {
    return {
      error: {
        type: "SerdeError",
        data: { message: "invalid type: argsJson must be a JSON object of arguments by name" },
      },
    };
  }
  try {
    return { output: runMethod(unit, ctx, state, method, argsJson as Record<string, unknown>) };
  } catch (error) {
    if (error instanceof GuestError || error instanceof GuestPanic) {
      return { error: { type: "FunctionCallError", data: functionCallErrorData(error) } };
    }
    return {
      error: {
        type: "InternalError",
        data: { kind: "SimulatedAppBug", message: (error as Error).message },
      },
    };
  }
}
