// Moving a group's contexts to another app version, and where that stands on each member's node.

import { z } from "zod";
import {
  callOptions,
  confirmed,
  defineTool,
  DESTRUCTIVE,
  output,
  READ_ONLY,
  type Tool,
} from "../tool.ts";
import { explainBare500 } from "../../answer/errors.ts";
import { jsonResult } from "../../answer/result.ts";
import { oneLine } from "../../lib/text.ts";
import { appName } from "../../apps/resolve.ts";
import type { ToolDeps } from "../deps.ts";
import { applicationParam, groupParam } from "../params.ts";

/**
 * `upgrade_group` moves every context of a group to another app version (cascade: subgroups too); retry: failed ones.
 */
export function upgradeGroup(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "upgrade_group",
    title: "Upgrade group",
    description:
      "Moves every context of a group to another app version (cascade: subgroups too); retry: failed ones.",
    group: "governance",
    input: z.object({
      group: groupParam,
      application: applicationParam.optional().describe(
        "Target app id or name (not with retry).",
      ),
      cascade: z.boolean().optional().describe("Subgroups on the same app too."),
      retry: z.boolean().optional().describe("Retry the contexts whose swap failed."),
    }),
    output: output({ groupId: "string", status: "string", next: "string" }, ["groupId"]),
    annotations: DESTRUCTIVE,
    run: async ({ group, application, cascade, retry }, call) => {
      const o = callOptions(call);
      const next = "group_upgrade_status shows where each member stands.";
      if (retry) {
        if (application !== undefined) throw new Error("Pass retry or application, not both.");
        // The retry re-runs migrations of an upgrade someone started: named from what the node holds, then asked.
        const status = await admin.groupUpgradeStatus(group, o);
        if (status === null) {
          throw new Error(
            `No upgrade has been made in group ${group}: there is nothing to retry.`,
          );
        }
        const text = (key: string) => oneLine(String(status[key] ?? "?"), 80);
        const failed = typeof status.localContextsFailed === "number"
          ? `${status.localContextsFailed} context(s) failed here`
          : "the contexts whose swap failed";
        return await confirmed(
          call,
          `Retry group ${group}'s upgrade from ${text("fromVersion")} to ${
            text("toVersion")
          } (started by ${
            text("initiatedBy")
          }) for ${failed}? Their migrations run again and may rewrite their state.`,
          { group, retry: status.toVersion ?? null, initiatedAt: status.initiatedAt ?? null },
          async () => jsonResult({ ...await admin.retryGroupUpgrade(group, o), next }),
        );
      }
      if (application === undefined) {
        throw new Error("Pass application (the version to move to), or retry: true.");
      }
      const target = await deps.apps.resolve(application);
      return await confirmed(
        call,
        `Upgrade every context of group ${group}${
          cascade ? " and of its subgroups on the same app" : ""
        } to ${
          appName(target)
        } (application ${target.id})? Every member's node switches them; a migration may rewrite their state, and going back is another upgrade.`,
        { group, application: target.id, cascade: cascade === true },
        async () => {
          try {
            return jsonResult({
              ...await admin.upgradeGroup(group, target.id, cascade === true, o),
              next,
            });
          } catch (error) {
            throw explainBare500(
              error,
              `The node refused to upgrade group ${group} without saying why (HTTP 500). In core the target must be installed here, signed by the same signer, with a state schema the running one can migrate to (one version at a time), and this node must be an admin or hold manage_application.`,
            );
          }
        },
      );
    },
  });
}

/**
 * `group_upgrade_status` shows a group's last upgrade and, for a namespace, each member's migration.
 */
export function groupUpgradeStatus(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "group_upgrade_status",
    title: "Group upgrade status",
    description: "Shows a group's last upgrade and, for a namespace, each member's migration.",
    group: "governance",
    input: z.object({ group: groupParam }),
    output: output({ groupId: "string", upgrade: "object?", migration: "object?" }, ["groupId"]),
    annotations: READ_ONLY,
    run: async ({ group }, call) => {
      const o = callOptions(call);
      const [upgrade, migration] = await Promise.all([
        admin.groupUpgradeStatus(group, o),
        admin.migrationStatus(group, o).catch(() => null),
      ]);
      return jsonResult({
        groupId: group,
        upgrade,
        migration,
        ...(upgrade === null ? { note: "No upgrade has been made in this group." } : {}),
      });
    },
  });
}
