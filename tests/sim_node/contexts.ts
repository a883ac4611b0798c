// Context operations: create (runs the app's `init` with the initialization params), join, and the
// JSON form of a context. Failures come back as `{ status, message }` for the route to shape.

import { findMethod, manifestOf } from "./abi.ts";
import { base58Id, sha256 } from "./ids.ts";
import { parseLossless, stringifyExact } from "./json.ts";
import { type ContextCore, network } from "./network.ts";
import { runMethod, unitFor } from "./execute.ts";
import { GuestError, GuestPanic } from "./guest.ts";
import { visibleGroup } from "./groups.ts";
import { type LocalContext, nextSeed, type NodeState } from "./state.ts";

/** A failed operation: the HTTP status and the message for a JSON `{ error }` body. */
export interface OpError {
  status: number;
  message: string;
}

/** What `POST /contexts` takes. */
export interface CreateContextInput {
  applicationId: string;
  groupId: string;
  initializationParams: number[];
  serviceName?: string | null;
  name?: string | null;
}

/** What `POST /contexts` answers. */
export interface CreatedContext {
  contextId: string;
  memberPublicKey: string;
  groupId: string;
  groupCreated: boolean;
}

function initArgs(params: number[]): Record<string, unknown> | OpError {
  if (params.length === 0) return {};
  try {
    const value = parseLossless(new TextDecoder("utf-8", { fatal: true }).decode(
      new Uint8Array(params),
    ));
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch { /* reported below */ }
  return { status: 400, message: "initializationParams must be the UTF-8 bytes of a JSON object" };
}

function addLocal(state: NodeState, core: ContextCore): LocalContext {
  const memberPublicKey = base58Id(`member:${core.id}:${state.seed}`);
  const local = { core, memberPublicKey, identities: [memberPublicKey] };
  state.contexts.set(core.id, local);
  return local;
}

/** Creates a context of an installed app in a group this node holds, running `init`. */
export function createContext(
  state: NodeState,
  input: CreateContextInput,
): CreatedContext | OpError {
  const app = state.apps.get(input.applicationId);
  if (!app) return { status: 404, message: `Application not found: ${input.applicationId}` };
  const group = visibleGroup(state, input.groupId);
  if (!group) return { status: 404, message: `Group not found: ${input.groupId}` };
  if (group.targetApplicationId !== app.id) {
    return {
      status: 400,
      message: `Group ${group.id} runs application ${group.targetApplicationId}, not ${app.id}`,
    };
  }
  const services = app.units.map((u) => u.service).join(", ");
  const service = input.serviceName ?? null;
  if (service !== null && !app.hasServices) {
    return { status: 400, message: `Application ${app.id} has no services; omit serviceName` };
  }
  const unit = unitFor(app, service);
  if (!unit) {
    return {
      status: 400,
      message: service === null
        ? `Application ${app.id} has several services (${services}): pass serviceName`
        : `Unknown service "${service}": this application has ${services}`,
    };
  }
  const args = initArgs(input.initializationParams);
  if ("status" in args) return args as OpError;
  const id = base58Id(nextSeed(state, "context"));
  const core: ContextCore = {
    id,
    applicationId: app.id,
    serviceName: service,
    groupId: group.id,
    name: input.name ?? null,
    applicationVersion: app.version ?? null,
    box: { state: {}, version: 0 },
  };
  const local = addLocal(state, core);
  try {
    if (unit.methods.init || findMethod(manifestOf(unit.abiText), "init")) {
      runMethod(unit, local, state, "init", args);
    }
  } catch (error) {
    state.contexts.delete(id);
    if (error instanceof GuestError) {
      const v = error.value;
      return { status: 400, message: typeof v === "string" ? v : stringifyExact(v) };
    }
    if (error instanceof GuestPanic) return { status: 400, message: error.message };
    throw error;
  }
  network.contexts.set(id, core);
  return {
    contextId: id,
    memberPublicKey: local.memberPublicKey,
    groupId: group.id,
    groupCreated: false,
  };
}

/** Joins a context: one this node holds, or one of a namespace it is a member of. */
export function joinContext(state: NodeState, contextId: string): LocalContext | OpError {
  const known = state.contexts.get(contextId);
  if (known) return known;
  const core = network.contexts.get(contextId);
  const group = core && visibleGroup(state, core.groupId);
  if (!core || !group) {
    return {
      status: 404,
      message: `Context not found: ${contextId} (join its namespace first)`,
    };
  }
  return addLocal(state, core);
}

/** The context as the admin API lists it. */
export function contextJson(ctx: LocalContext): Record<string, unknown> {
  const { core } = ctx;
  const out: Record<string, unknown> = { id: core.id, applicationId: core.applicationId };
  if (core.serviceName !== null) out.serviceName = core.serviceName;
  out.contextStateHash = base58Id(`state:${core.id}:${core.box.version}`);
  // Empty `dagHeads` are skipped when serialised (core crates/primitives/src/context.rs).
  if (core.box.version > 0) out.dagHeads = [[...sha256(`dag:${core.id}:${core.box.version}`)]];
  if (core.applicationVersion !== null) out.applicationVersion = core.applicationVersion;
  if (core.name !== null) out.name = core.name;
  out.groupId = core.groupId;
  return out;
}
