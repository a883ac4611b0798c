// Namespace and group routes: pages of namespaces, create (upgradePolicy required), delete with a
// JSON body, signed invitations and joins, leave, subgroups, members (flat body), visibility,
// metadata and join-via-inheritance.

import { data, json, jsonError } from "../http.ts";
import {
  createGroup,
  groupJson,
  joinViaInheritance,
  memberAccount,
  namespaceJson,
  ROLES,
  subgroups,
  visibleGroup,
} from "../groups.ts";
import { isBase58Id } from "../ids.ts";
import { makeInvitation, verifyInvitation } from "../invitation.ts";
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
const notFound = () => jsonError(404, "Group not found");

function createNamespace({ node, body }: RouteCtx): Response {
  const input = bodyObject(body);
  if (!input) return notAnObject();
  if (input.applicationId === undefined) return missingField("applicationId");
  if (input.upgradePolicy === undefined) return missingField("upgradePolicy");
  if (typeof input.applicationId !== "string" || !isBase58Id(input.applicationId)) {
    return invalidField("applicationId", "a base58 application id");
  }
  if (!node.apps.has(input.applicationId)) return jsonError(404, "Application not found");
  const group = createGroup(node, {
    applicationId: input.applicationId,
    name: input.name as string | undefined,
    upgradePolicy: input.upgradePolicy,
  });
  return data({ namespaceId: group.id });
}

function createGroupRoute({ node, body }: RouteCtx): Response {
  const input = bodyObject(body);
  if (!input) return notAnObject();
  if (input.applicationId === undefined) return missingField("applicationId");
  if (input.upgradePolicy === undefined) return missingField("upgradePolicy");
  const parentId = input.parentGroupId as string | undefined;
  if (parentId && !visibleGroup(node, parentId)) return jsonError(404, "Parent group not found");
  const group = createGroup(node, {
    applicationId: input.applicationId as string,
    name: input.name as string | undefined,
    parentId,
    upgradePolicy: input.upgradePolicy,
  });
  return data({ groupId: group.id });
}

function join({ node, params, body }: RouteCtx): Response {
  const input = bodyObject(body);
  if (!input) return notAnObject();
  if (input.invitation === undefined) return missingField("invitation");
  const verified = verifyInvitation(input.invitation);
  if (typeof verified === "string") return jsonError(400, verified);
  if (verified.groupId !== params.namespace.toLowerCase()) {
    return jsonError(
      400,
      `The invitation is for namespace ${verified.groupId}, not ${params.namespace}`,
    );
  }
  const group = network.groups.get(verified.groupId);
  if (!group || group.deleted) return jsonError(404, "Namespace not found on the network");
  if (!group.members.has(node.identity.accountId)) {
    group.members.set(node.identity.accountId, verified.role);
  }
  node.namespaces.add(group.id);
  return data({
    namespaceId: group.id,
    memberIdentity: node.identity.publicKey,
    memberAccount: node.identity.accountId,
  });
}

function addMembers({ node, params, body }: RouteCtx): Response {
  const group = visibleGroup(node, params.group);
  if (!group) return notFound();
  const input = bodyObject(body);
  if (!input) return notAnObject();
  if (!Array.isArray(input.members)) return missingField("members");
  const accepted: [string, string][] = [];
  for (const member of input.members as Record<string, unknown>[]) {
    const account = memberAccount(member?.identity);
    if (!account) {
      return invalidField("members.identity", "a base58 public key or a 64-hex account");
    }
    if (!ROLES.includes(member.role as string)) {
      return invalidField("members.role", `one of ${ROLES.join(", ")}`);
    }
    accepted.push([account, member.role as string]);
  }
  for (const [account, role] of accepted) group.members.set(account, role);
  return data(null);
}

function setVisibility({ node, params, body }: RouteCtx): Response {
  const group = visibleGroup(node, params.group);
  if (!group) return notFound();
  const value = bodyObject(body)?.subgroupVisibility;
  if (value === undefined) return missingField("subgroupVisibility");
  const lower = typeof value === "string" ? value.toLowerCase() : "";
  if (lower !== "open" && lower !== "restricted") {
    return invalidField("subgroupVisibility", "open or restricted");
  }
  group.visibility = lower;
  return data(null);
}

function setMetadata({ node, params, body }: RouteCtx): Response {
  const group = visibleGroup(node, params.group);
  if (!group) return notFound();
  const input = bodyObject(body);
  if (!input) return notAnObject();
  if (input.name !== undefined) group.metadata.name = group.name = input.name as string | null;
  if (input.data !== undefined) group.metadata.data = input.data;
  return data(null);
}

const withGroup =
  (handler: (ctx: RouteCtx, g: NonNullable<ReturnType<typeof visibleGroup>>) => Response) =>
  (ctx: RouteCtx) => {
    const group = visibleGroup(ctx.node, ctx.params.group ?? ctx.params.namespace);
    return group ? handler(ctx, group) : notFound();
  };

/** The namespace and group routes. */
export const groupRoutes: Route[] = [
  {
    method: "GET",
    pattern: `${A}/namespaces`,
    handler: ({ node, url }) => {
      const offset = Number(url.searchParams.get("offset") ?? 0) || 0;
      const limit = Number(url.searchParams.get("limit") ?? 100) || 100;
      const all = [...node.namespaces].map((id) => network.groups.get(id)!)
        .filter((g) => g && !g.deleted).map(namespaceJson);
      return data(all.slice(offset, offset + limit));
    },
  },
  { method: "POST", pattern: `${A}/namespaces`, json: true, handler: createNamespace },
  {
    method: "GET",
    pattern: `${A}/namespaces/:namespace`,
    handler: withGroup((_c, g) => data(namespaceJson(g))),
  },
  {
    method: "DELETE",
    pattern: `${A}/namespaces/:namespace`,
    json: true,
    handler: withGroup(({ node }, g) => {
      g.deleted = true;
      node.namespaces.delete(g.id);
      return data({ isDeleted: true });
    }),
  },
  {
    method: "POST",
    pattern: `${A}/namespaces/:namespace/invite`,
    json: true,
    handler: withGroup(({ node }, g) =>
      data({ invitation: makeInvitation(node, g), groupName: g.name ?? undefined })
    ),
  },
  { method: "POST", pattern: `${A}/namespaces/:namespace/join`, json: true, handler: join },
  {
    method: "POST",
    pattern: `${A}/namespaces/:namespace/leave`,
    json: true,
    handler: withGroup(({ node }, g) => {
      g.members.delete(node.identity.accountId);
      node.namespaces.delete(g.id);
      return data(null);
    }),
  },
  {
    method: "GET",
    pattern: `${A}/namespaces/:namespace/groups`,
    handler: withGroup((_c, g) => data(subgroups(g).map(groupJson))),
  },
  {
    method: "POST",
    pattern: `${A}/namespaces/:namespace/groups`,
    json: true,
    handler: withGroup(({ node, body }, g) => {
      const name = bodyObject(body)?.name as string | undefined;
      const group = createGroup(node, {
        applicationId: g.targetApplicationId,
        name,
        parentId: g.id,
        upgradePolicy: g.upgradePolicy,
      });
      return data({ groupId: group.id });
    }),
  },
  { method: "POST", pattern: `${A}/groups`, json: true, handler: createGroupRoute },
  {
    method: "GET",
    pattern: `${A}/groups/:group`,
    handler: withGroup((_c, g) => data(groupJson(g))),
  },
  {
    method: "DELETE",
    pattern: `${A}/groups/:group`,
    handler: withGroup((_c, g) => {
      g.deleted = true;
      return data({ isDeleted: true });
    }),
  },
  {
    method: "GET",
    pattern: `${A}/groups/:group/members`,
    handler: withGroup((_c, g) =>
      json({ members: [...g.members].map(([identity, role]) => ({ identity, role })) })
    ),
  },
  { method: "POST", pattern: `${A}/groups/:group/members`, json: true, handler: addMembers },
  {
    method: "GET",
    pattern: `${A}/groups/:group/subgroups`,
    handler: withGroup((_c, g) => data(subgroups(g).map(groupJson))),
  },
  {
    method: "PUT",
    pattern: `${A}/groups/:group/settings/subgroup-visibility`,
    json: true,
    handler: setVisibility,
  },
  {
    method: "GET",
    pattern: `${A}/groups/:group/metadata`,
    handler: withGroup((_c, g) => data(g.metadata)),
  },
  { method: "PUT", pattern: `${A}/groups/:group/metadata`, json: true, handler: setMetadata },
  {
    method: "POST",
    pattern: `${A}/groups/:group/join-via-inheritance`,
    json: true,
    handler: withGroup(({ node }, g) => {
      const joined = joinViaInheritance(node, g);
      if (typeof joined === "string") return jsonError(403, joined);
      return data({
        groupId: g.id,
        memberPublicKey: node.identity.publicKey,
        wasInherited: joined.wasInherited,
      });
    }),
  },
];
