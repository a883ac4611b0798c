// Context and alias routes: create (groupId and initializationParams required), pages of 100,
// for-application, join, identities, and context aliases.

import {
  contextJson,
  createContext,
  joinContext,
  moveContextApp,
  type OpError,
  syncContexts,
} from "../contexts.ts";
import { data, json, jsonError, refusal, text } from "../http.ts";
import { isBase58Id, isHexId, toHex } from "../ids.ts";
import { base58Decode } from "../base58.ts";
import { network } from "../network.ts";
import {
  bodyObject,
  invalidField,
  missingField,
  notAnObject,
  type Route,
  type RouteCtx,
} from "../router.ts";

const A = "/admin-api";

function isOpError(value: unknown): value is OpError {
  return typeof value === "object" && value !== null && "status" in value && "message" in value;
}

function page(url: URL): [number, number] | string {
  const read = (name: string, fallback: number) => {
    const raw = url.searchParams.get(name);
    return raw === null ? fallback : /^\d+$/.test(raw) ? Number(raw) : NaN;
  };
  const offset = read("offset", 0);
  const limit = read("limit", 100);
  return Number.isNaN(offset) || Number.isNaN(limit)
    ? "Failed to deserialize query string: offset and limit must be non-negative integers"
    : [offset, limit];
}

function create({ node, body }: RouteCtx): Response {
  const input = bodyObject(body);
  if (!input) return notAnObject();
  for (const field of ["applicationId", "groupId", "initializationParams"]) {
    if (input[field] === undefined) return missingField(field);
  }
  if (typeof input.applicationId !== "string" || !isBase58Id(input.applicationId)) {
    return invalidField("applicationId", "a base58 application id");
  }
  if (typeof input.groupId !== "string" || !isHexId(input.groupId)) {
    return invalidField("groupId", "a 64-hex group id");
  }
  const params = input.initializationParams;
  if (!Array.isArray(params) || params.some((b) => !Number.isInteger(b) || b < 0 || b > 255)) {
    return invalidField("initializationParams", "an array of bytes");
  }
  const result = createContext(node, {
    applicationId: input.applicationId,
    groupId: input.groupId.toLowerCase(),
    initializationParams: params,
    serviceName: input.serviceName as string | null | undefined,
    name: input.name as string | null | undefined,
  });
  return isOpError(result) ? jsonError(result.status, result.message) : data(result);
}

/** The context and alias routes. */
export const contextRoutes: Route[] = [
  { method: "POST", pattern: `${A}/contexts`, json: true, validated: true, handler: create },
  {
    method: "GET",
    pattern: `${A}/contexts`,
    handler: ({ node, url }) => {
      const p = page(url);
      if (typeof p === "string") return text(400, p);
      const all = [...node.contexts.values()].map(contextJson);
      return data({ contexts: all.slice(p[0], p[0] + p[1]) });
    },
  },
  {
    method: "GET",
    pattern: `${A}/contexts/:context`,
    handler: ({ node, params }) => {
      const ctx = node.contexts.get(params.context);
      return ctx ? data(contextJson(ctx)) : jsonError(404, "Context not found");
    },
  },
  {
    // {data: "<group hex>" | null} (get_context_group.rs).
    method: "GET",
    pattern: `${A}/contexts/:context/group`,
    handler: ({ node, params }) => {
      const ctx = node.contexts.get(params.context);
      return data(ctx?.core.groupId ?? network.contexts.get(params.context)?.groupId ?? null);
    },
  },
  {
    method: "DELETE",
    pattern: `${A}/contexts/:context`,
    handler: ({ node, params }) => {
      // A group's context is also detached from the group for every member, so only an admin of the group may
      // delete it (delete_context.rs: require_admin; a bare 500 at 051f0848, as the real merod answers).
      const groupId = node.contexts.get(params.context)?.core.groupId;
      const group = groupId ? network.groups.get(groupId) : undefined;
      if (group && group.members.get(node.identity.accountId) !== "Admin") {
        return refusal(
          node,
          403,
          `identity ${node.identity.accountId} is not an admin of group ${group.id}`,
        );
      }
      const existed = node.contexts.delete(params.context);
      if (existed) {
        node.aliases.forEach((id, alias) => id === params.context && node.aliases.delete(alias));
        network.contexts.delete(params.context);
      }
      return existed ? data({ isDeleted: true }) : jsonError(404, "Context not found");
    },
  },
  {
    method: "GET",
    pattern: `${A}/contexts/for-application/:app`,
    handler: ({ node, params }) =>
      data({
        contexts: [...node.contexts.values()]
          .filter((c) => c.core.applicationId === params.app)
          .map(contextJson),
      }),
  },
  {
    method: "POST",
    pattern: `${A}/contexts/:context/join`,
    json: true,
    handler: async ({ node, params }) => {
      const joined = await joinContext(node, params.context);
      if (isOpError(joined)) return jsonError(joined.status, joined.message);
      return data({ contextId: joined.core.id, memberPublicKey: joined.memberPublicKey });
    },
  },
  {
    // Leaves locally, publishing nothing: {data:{contextId, memberPublicKey}} (core admin/handlers/context/
    // leave_context.rs). The context stays listed with its state; only this node's identities go (crates/context/
    // src/handlers/leave_context.rs), and a second leave succeeds too (:75-98). A context this node does
    // not hold is an untyped failure, a bare 500.
    method: "POST",
    pattern: `${A}/contexts/:context/leave`,
    json: true,
    handler: ({ node, params }) => {
      const ctx = node.contexts.get(params.context);
      if (!ctx) return jsonError(500, "Internal server error");
      ctx.left = true;
      return data({ contextId: ctx.core.id, memberPublicKey: ctx.memberPublicKey });
    },
  },
  ...[`${A}/contexts/sync`, `${A}/contexts/sync/:context`].map((pattern): Route => ({
    // `node_client.sync(context)` only enqueues, then {data:null} (`Empty` is a unit struct): even for a context
    // this node does not hold (core admin/handlers/context/sync.rs; crates/node/primitives/src/client.rs;
    // crates/server/primitives/src/admin/mod.rs).
    method: "POST",
    pattern,
    handler: ({ node, params }) => {
      syncContexts(node, params.context ?? null);
      return data(null);
    },
  })),
  {
    method: "POST",
    pattern: `${A}/contexts/:context/application`,
    json: true,
    validated: true,
    // {applicationId, executorPublicKey} → {data: {}}. The app must be installed, the executor one of this
    // node's identities in the context, and the signer the same (AppKey continuity; signed → unsigned refused):
    // each an untyped eyre error, a bare 500 at 051f0848 (core crates/context/src/handlers/update_application/
    // mod.rs, server admin/handlers/context/update_context_application.rs).
    handler: ({ node, params, body }) => {
      const input = bodyObject(body);
      if (!input) return notAnObject();
      if (typeof input.applicationId !== "string") return missingField("applicationId");
      if (typeof input.executorPublicKey !== "string") return missingField("executorPublicKey");
      const ctx = node.contexts.get(params.context);
      const app = node.apps.get(input.applicationId);
      const from = ctx ? node.apps.get(ctx.core.applicationId) : undefined;
      if (!ctx) return refusal(node, 404, `context '${params.context}' does not exist`);
      if (!app) return refusal(node, 404, `application with id '${input.applicationId}' not found`);
      if (ctx.memberPublicKey !== input.executorPublicKey) {
        return refusal(
          node,
          403,
          "unauthorized: caller is not a permitted identity for this context",
        );
      }
      if (from?.signerId !== undefined && from.signerId !== app.signerId) {
        return refusal(node, 409, "AppKey continuity violation: signerId mismatch");
      }
      moveContextApp(ctx.core, app);
      return data({});
    },
  },
  {
    method: "POST",
    pattern: `${A}/contexts/:context/resync`,
    json: true,
    validated: true,
    // A flat {contextId (hex), resyncStarted}: group-only, and refused while the context holds local DAG heads
    // (here: any write) unless `force`; both untyped eyre errors, a bare 500 at 051f0848 (core crates/context/
    // src/handlers/resync_context.rs, server admin/handlers/context/resync_context.rs).
    handler: ({ node, params, body }) => {
      const ctx = node.contexts.get(params.context);
      const force = bodyObject(body)?.force === true;
      if (!ctx || !network.groups.has(ctx.core.groupId)) {
        return jsonError(500, "Internal server error");
      }
      if (ctx.core.box.version > 0 && !force) return jsonError(500, "Internal server error");
      syncContexts(node, ctx.core.id);
      return json({ contextId: toHex(base58Decode(ctx.core.id)!), resyncStarted: true });
    },
  },
  ...["identities", "identities-owned"].map((kind): Route => ({
    method: "GET",
    pattern: `${A}/contexts/:context/${kind}`,
    handler: ({ node, params }) => {
      const ctx = node.contexts.get(params.context);
      if (!ctx) return jsonError(404, "Context not found");
      // A left context's rows for this node's keys are deleted (leave_context.rs).
      return data({
        identities: ctx.left
          ? ctx.identities.filter((k) => k !== ctx.memberPublicKey)
          : ctx.identities,
      });
    },
  })),
  {
    method: "POST",
    pattern: `${A}/alias/create/context`,
    json: true,
    handler: ({ node, body }) => {
      const input = bodyObject(body);
      if (!input) return notAnObject();
      if (typeof input.alias !== "string") return missingField("alias");
      if (typeof input.contextId !== "string") return missingField("contextId");
      if (!isBase58Id(input.contextId)) return invalidField("contextId", "a base58 context id");
      // `Alias` deserialises only 1-50 of [A-Za-z0-9._-] (core crates/primitives/src/alias.rs); the handler
      // takes a plain axum `Json`, whose rejection is a plain-text 422 (admin/handlers/alias/create_alias.rs).
      if (!SIM_ALIAS.test(input.alias)) {
        return text(
          422,
          "Failed to deserialize the JSON body into the target type: alias: invalid character",
        );
      }
      if (node.aliases.has(input.alias)) return jsonError(409, "alias already exists");
      node.aliases.set(input.alias, input.contextId);
      return data(null);
    },
  },
  {
    method: "POST",
    pattern: `${A}/alias/lookup/context/:name`,
    json: true,
    // The path extractor is `Option<Path<Alias<T>>>`: a name outside the alias charset fails extraction with a
    // plain-text 400 (core crates/server/src/admin/handlers/alias/lookup_alias.rs).
    handler: ({ node, params }) =>
      SIM_ALIAS.test(params.name)
        ? data({ value: node.aliases.get(params.name) ?? null })
        : text(400, "invalid path params"),
  },
  {
    method: "GET",
    pattern: `${A}/alias/list/context`,
    handler: ({ node }) => data(Object.fromEntries(node.aliases)),
  },
  {
    method: "POST",
    pattern: `${A}/alias/delete/context/:name`,
    json: true,
    // Idempotent: an absent alias is deleted as well (`{data: {}}`); a name outside the alias charset fails the
    // path extractor, a plain-text 400 (core crates/server/src/admin/handlers/alias/delete_alias.rs).
    handler: ({ node, params }) => {
      if (!SIM_ALIAS.test(params.name)) return text(400, "invalid path params");
      node.aliases.delete(params.name);
      return data({});
    },
  },
];

/** What core's `Alias` accepts (crates/primitives/src/alias.rs). */
const SIM_ALIAS = /^[A-Za-z0-9._-]{1,50}$/;
