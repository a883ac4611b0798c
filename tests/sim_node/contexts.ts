// Context operations: create (runs the app's `init` with the initialization params), join, and the
// JSON form of a context. Failures come back as `{ status, message }` for the route to shape.

import { findMethod, manifestOf } from "./abi.ts";
import { base58Id, sha256 } from "./ids.ts";
import { parseLossless, stringifyExact } from "./json.ts";
import { type ContextCore, network } from "./network.ts";
import { runMethod, unitFor } from "./execute.ts";
import { GuestError, GuestPanic } from "./guest.ts";
import { isMemberOf, visibleGroup } from "./groups.ts";
import { type LocalContext, nextSeed, type NodeState } from "./state.ts";
import { emitContextEvent } from "./events.ts";

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

function addLocal(state: NodeState, core: ContextCore, syncedAt = 0): LocalContext {
  const memberPublicKey = base58Id(`member:${core.id}:${state.seed}`);
  const local = { core, memberPublicKey, identities: [memberPublicKey], syncedAt, left: false };
  state.contexts.set(core.id, local);
  return local;
}

/** core's untyped failures on the admin API: logged, answered as a bare 500 (server/src/admin/service.rs). */
const INTERNAL: OpError = { status: 500, message: "Internal server error" };

/** The group capability bit that lets a non-admin create contexts (core context/config/src/lib.rs). */
export const CAN_CREATE_CONTEXT = 1 << 0;

/**
 * A new member row follows the group's contexts by itself (`auto_follow.contexts = true`, core
 * crates/store/src/key/group/mod.rs; crates/context/src/auto_follow.rs): every node that holds the
 * namespace joins the context, and holds no state until it syncs.
 */
export function autoFollow(state: NodeState, core: ContextCore): void {
  const group = visibleGroup(state, core.groupId);
  // Only where this node's account is a member, directly or through open subgroups: a restricted subgroup's
  // contexts are not followed by a node that merely holds the namespace (core auto_follow.rs, :706-765).
  if (state.contexts.has(core.id) || !group || !isMemberOf(state, group)) return;
  // A member whose auto-follow of contexts is switched off joins them itself (core set_member_auto_follow.rs).
  if (group.autoFollow.get(state.identity.accountId)?.contexts === false) return;
  addLocal(state, core, Date.now() + state.syncDelayMs);
}

/**
 * Creates a context in a group this node holds, running `init`, in core's order (crates/context/src/handlers/
 * create_context.rs): the group, this node's membership, its right to create (admin or
 * CAN_CREATE_CONTEXT), then the application — the group's, whatever was asked: a different one is replaced with
 * the group's target without a word (`warn!("overriding application_id with group target")`, :236-243). Each of
 * those failures is untyped there, so the route answers a bare 500; only a failed `init` is a 400.
 */
export function createContext(
  state: NodeState,
  input: CreateContextInput,
): CreatedContext | OpError {
  const group = visibleGroup(state, input.groupId);
  if (!group) return INTERNAL; // "group not found"
  const role = group.members.get(state.identity.accountId);
  if (role === undefined) return INTERNAL; // "identity is not a member of group"
  const caps = group.capabilities.get(state.identity.accountId) ?? 0;
  if (role !== "Admin" && (caps & CAN_CREATE_CONTEXT) === 0) return INTERNAL; // lacks CAN_CREATE_CONTEXT
  const app = state.apps.get(group.targetApplicationId);
  if (!app) return INTERNAL; // "application not found"
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
  for (const other of network.nodes) if (other !== state) autoFollow(other, core);
  return {
    contextId: id,
    memberPublicKey: local.memberPublicKey,
    groupId: group.id,
    groupCreated: false,
  };
}

/**
 * Joins a context: one this node holds, or one of a group it is a member of. For a context whose group it cannot
 * place, core syncs the namespaces it knows and looks for up to GROUP_LOOKUP_TIMEOUT (30 s), then fails untyped
 * ("context does not belong to any group") — a bare 500 (crates/context/src/handlers/join_context.rs,
 * :52-147).
 */
export async function joinContext(
  state: NodeState,
  contextId: string,
): Promise<LocalContext | OpError> {
  const known = state.contexts.get(contextId);
  if (known) {
    // Joining a context this node left brings its identity back (join_context.rs clears the marker).
    known.left = false;
    return known;
  }
  // A context of a group this node has no membership path to (a restricted subgroup) never reaches it: the lookup
  // runs out like an unknown one's (seen on a real merod: the 30 s wait, then the 500).
  const found = () => {
    const core = network.contexts.get(contextId);
    const group = core ? visibleGroup(state, core.groupId) : undefined;
    return core && group && isMemberOf(state, group) ? core : undefined;
  };
  const deadline = Date.now() + state.joinLookupMs;
  let core = found();
  while (!core && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, state.joinLookupMs)));
    core = found();
  }
  if (!core) return INTERNAL;
  return state.contexts.get(contextId) ?? addLocal(state, core);
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

/**
 * A sync of one context (or all): each settles the context's state here and moves its sync phase Syncing → Idle,
 * one `SyncStatus` event per phase change (core crates/node/src/sync/session.rs, publish_state). A
 * context this node does not hold is an untyped failure (a bare 500 on the admin route).
 */
export function syncContexts(state: NodeState, contextId: string | null): OpError | null {
  const targets = contextId === null
    ? [...state.contexts.values()]
    : [state.contexts.get(contextId)].filter((c) => c !== undefined);
  if (contextId !== null && targets.length === 0) return INTERNAL;
  for (const ctx of targets) {
    emitSyncStatus(state, ctx.core.id, "syncing");
    ctx.syncedAt = Math.min(ctx.syncedAt, Date.now());
    emitSyncStatus(state, ctx.core.id, "idle");
  }
  return null;
}

/** One `SyncStatus` event to this node's subscribers (crates/primitives/src/events.rs SyncStatusPayload). */
export function emitSyncStatus(state: NodeState, contextId: string, phase: string): void {
  emitContextEvent(
    contextId,
    "SyncStatus",
    { syncState: { state: phase }, failureCount: 0 },
    { only: "origin", origin: state },
  );
}

/**
 * The JSON-RPC `sync_status` answer (core crates/server/src/jsonrpc/sync_status.rs): whether the state is here,
 * and the phase — `waitingForPeers` while it is not, `idle` once it is.
 */
export function syncStatus(state: NodeState, contextId: string): Record<string, unknown> | null {
  const ctx = state.contexts.get(contextId);
  if (!ctx) return null;
  const initialized = ctx.syncedAt <= Date.now();
  return {
    contextId,
    isInitialized: initialized,
    syncState: { state: initialized ? "idle" : "waitingForPeers" },
    failureCount: 0,
  };
}

/**
 * Runs a context on another installed app, as core's application update does (crates/context/src/handlers/
 * update_application/mod.rs): the context's subscribers get `AppVersionChanged` when the id changes.
 */
export function moveContextApp(core: ContextCore, app: { id: string; version?: string }): void {
  if (core.applicationId === app.id) return;
  const fromVersion = core.applicationVersion;
  core.applicationId = app.id;
  core.applicationVersion = app.version ?? null;
  const data: Record<string, unknown> = {};
  if (fromVersion !== null) data.fromVersion = fromVersion;
  if (app.version) data.toVersion = app.version;
  emitContextEvent(core.id, "AppVersionChanged", data);
}
