// Creating a context: in which namespace or group, with the app's init arguments, and, when the node refuses,
// which of core's rules it met.

import { z } from "zod";
import { callOptions, defineTool, output, type Tool, WRITE } from "../tool.ts";
import { jsonResult } from "../../answer/result.ts";
import { appName, chooseService, packageOrId } from "../../apps/resolve.ts";
import {
  type Application,
  type CallOptions,
  NodeHttpError,
  unlessMissing,
} from "../../mero/mod.ts";
import { stringifyJson } from "../../lib/json.ts";
import { toWireArgs } from "../../apps/values.ts";
import type { ToolDeps } from "../deps.ts";
import { CAPABILITIES } from "../capabilities.ts";
import {
  groupMembers,
  groupStanding,
  memberRow,
  ownAccount,
  standingProblem,
} from "../membership.ts";
import { applicationParam, nonEmpty, serviceParam } from "../params.ts";

/** `create_context` creates a context of an app in a namespace or group; `args` go to init. */
export function createContext(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "create_context",
    title: "Create context",
    description: "Creates a context of an app in a namespace or group; `args` go to init.",
    group: "core",
    input: z.object({
      application: applicationParam,
      group: nonEmpty("Namespace or group id (64 hex); default: the app's one namespace.")
        .optional(),
      namespace: nonEmpty("Synonym of group.").optional(),
      name: z.string().optional().describe("Context name."),
      service: serviceParam.optional(),
      args: z.looseObject({}).optional().describe("init's arguments by name."),
    }),
    output: output(
      { contextId: "string", memberPublicKey: "string", applicationId: "string", note: "string" },
      ["contextId"],
    ),
    annotations: WRITE,
    run: async (input, call) => {
      const o = callOptions(call);
      const asked = await deps.apps.resolve(input.application);
      const given = input.group === undefined && input.namespace === undefined
        ? null
        : pickGroup(input.group, input.namespace);
      // No group given: the app's one namespace on this node, when there is exactly one (a required argument
      // the server can infer is one an agent gets wrong for nothing).
      const inferred = given === null ? await onlyNamespaceOf(admin, asked, o) : null;
      const groupId = given ?? inferred!;
      // core runs the group's app whatever is asked (create_context.rs): find it first, so the args are
      // checked against the init that will really run and a different app is said, not silently swapped.
      const { app, note } = await appOfGroup(deps, groupId, asked, o);
      const service = chooseService(app, input.service ?? null);
      const params = input.args === undefined
        ? []
        : await initParams(deps, app, service, input.args);
      let created;
      try {
        created = await admin.createContext({
          applicationId: app.id,
          groupId,
          initializationParams: params,
          ...(input.service !== undefined ? { serviceName: input.service } : {}),
          ...(input.name !== undefined ? { name: input.name } : {}),
        }, o);
      } catch (error) {
        throw await createProblem(deps, error, groupId, o);
      }
      const made = await unlessMissing(admin.getContext(created.contextId, o)).catch(() => null);
      const runs = made?.applicationId ?? app.id;
      return jsonResult({
        contextId: created.contextId,
        memberPublicKey: created.memberPublicKey,
        applicationId: runs,
        ...(runs !== app.id
          ? { note: `The node created a context of application ${runs}, not ${app.id}.` }
          : note || inferred
          ? {
            note: [
              inferred ? `Created in namespace ${inferred}, the app's only one on this node.` : "",
              note ?? "",
            ].filter(Boolean).join(" "),
          }
          : {}),
      });
    },
  });
}

/** `group`, or its synonym `namespace`; exactly one id must come out. */
export function pickGroup(group: string | undefined, namespace: string | undefined): string {
  if (group !== undefined && namespace !== undefined && group !== namespace) {
    throw new Error(
      `group "${group}" and namespace "${namespace}" differ; pass one of them (namespace is a synonym of group).`,
    );
  }
  const id = group ?? namespace;
  if (id === undefined) {
    throw new Error(
      "Pass group: the namespace id or group id the context belongs to (list_namespaces shows them; create_namespace makes one).",
    );
  }
  return id;
}

/**
 * The namespace of `app` on this node when there is exactly one; otherwise says which to pass (core's namespace
 * list carries each one's target app: crates/server/src/admin/handlers/namespaces/list.rs).
 */
async function onlyNamespaceOf(
  admin: ToolDeps["node"]["admin"],
  app: Application,
  o: CallOptions,
): Promise<string> {
  const namespaces = (await admin.listNamespaces({ limit: 1000 }, o))
    .filter((ns) => ns.targetApplicationId === app.id);
  if (namespaces.length === 1) return namespaces[0].namespaceId;
  throw new Error(
    namespaces.length === 0
      ? `${
        packageOrId(app)
      } has no namespace on this node yet, and a context lives in one: call create_namespace {"application": "${
        packageOrId(app)
      }"} first, then create_context again (or join_namespace to join another node's).`
      : `Pass group: ${packageOrId(app)} has ${namespaces.length} namespaces on this node (${
        namespaces.slice(0, 5).map((ns) =>
          ns.name ? `${ns.namespaceId} "${ns.name}"` : ns.namespaceId
        )
          .join(", ")
      }${namespaces.length > 5 ? ", …" : ""}); list_namespaces shows them.`,
  );
}

/** Validates `args` against the ABI's `init` like a method call; the UTF-8 bytes of their wire JSON. */
async function initParams(
  deps: ToolDeps,
  app: Application,
  service: string | null,
  args: Record<string, unknown>,
): Promise<number[]> {
  const manifest = await deps.apps.abi(app, service);
  const init = manifest.methods.find((m) => m.name === "init");
  if (init === undefined) {
    throw new Error(
      `Application "${
        packageOrId(app)
      }" has no init method, so it takes no args; call create_context without args.`,
    );
  }
  const wire = toWireArgs(manifest, init, args);
  if (!wire.ok) throw new Error(wire.message);
  return Array.from(new TextEncoder().encode(stringifyJson(wire.value)));
}

/**
 * The app a context in `groupId` will run: the group's target (core replaces any other with it). The same package
 * at another version is taken, with a note; another app is refused, naming both. When the group cannot be read,
 * the asked app is used and the creation itself says what is wrong.
 */
async function appOfGroup(
  deps: ToolDeps,
  groupId: string,
  asked: Application,
  o: CallOptions,
): Promise<{ app: Application; note: string | null }> {
  const group = await deps.node.admin.getGroup(groupId, o).catch(() => null);
  const target = group?.targetApplicationId;
  if (typeof target !== "string" || target === asked.id) return { app: asked, note: null };
  const installed = await deps.apps.resolve(target).catch(() => null);
  const named = installed ? appName(installed) : target;
  // The same package from the same signer at another version: the group's version runs (an upgrade not yet applied
  // there, say). Anything else is another app, refused by name.
  if (
    installed && installed.package !== undefined && installed.package === asked.package &&
    installed.signer_id === asked.signer_id
  ) {
    return {
      app: installed,
      note:
        `The group runs ${named} (application ${target}), so the context runs that version, not ${
          asked.version ?? asked.id
        }.`,
    };
  }
  throw new Error(
    `Group ${groupId} runs ${named}${
      installed ? ` (application ${target})` : ` (not installed on this node)`
    }, not ${
      packageOrId(asked)
    }: the node would create a context of the group's app whatever is asked. Pass that app, or a namespace of ${
      packageOrId(asked)
    } (list_namespaces shows each namespace's app; create_namespace makes one).`,
  );
}

/**
 * Why create_context failed. core answers every cause but a failed init with a bare 500 ("Internal server
 * error": crates/context/src/handlers/create_context.rs, server admin/service.rs), so the likely
 * one is asked of the node: the group, this node's membership and role there, its create_context capability.
 */
async function createProblem(
  deps: ToolDeps,
  error: unknown,
  groupId: string,
  o: CallOptions,
): Promise<unknown> {
  if (!(error instanceof NodeHttpError) || error.status !== 500) return error;
  const admin = deps.node.admin;
  const opaque = 'The node refused to create the context with a bare "Internal server error"';
  const standing = await groupStanding(admin, groupId, o).catch(() => null);
  const problem = standing === null ? null : standingProblem(standing, groupId);
  if (problem !== null) return new Error(`${opaque}: ${problem}.`);
  const [account, members] = await Promise.all([
    ownAccount(admin, o),
    groupMembers(admin, groupId, o),
  ]);
  const mine = members === null ? undefined : memberRow(members, account);
  if (members === null || (account !== null && !mine)) {
    return new Error(
      `${opaque}: this node is not a member of group ${groupId}. Join it first (join_namespace with an invitation, or join_open_group for an open subgroup).`,
    );
  }
  if (mine && mine.role !== "Admin" && account !== null) {
    const caps = await admin.getMemberCapabilities(groupId, account, o).catch(() => null);
    if (caps !== null && (caps & CAPABILITIES.create_context) === 0) {
      return new Error(
        `${opaque}: this node is ${mine.role} in group ${groupId} without the create_context capability. An admin of the group grants it (set_member_capabilities with grant ["create_context"]).`,
      );
    }
  }
  return new Error(`${opaque}; its log says why.`);
}
