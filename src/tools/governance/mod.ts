// The governance toolset (namespaces, groups and their members, as core's group governance keeps them): the tools
// in listing order, each defined in a file of related tools beside this one.

import type { Tool } from "../tool.ts";
import type { ToolDeps } from "../deps.ts";
import {
  createNamespace,
  deleteNamespace,
  inviteToNamespace,
  joinNamespace,
  leaveNamespace,
} from "./namespaces.ts";
import {
  createGroup,
  deleteGroup,
  describeGroup,
  detachContext,
  joinOpenGroup,
  leaveGroup,
  syncGroup,
} from "./groups.ts";
import { groupUpgradeStatus, upgradeGroup } from "./upgrades.ts";
import {
  setAutoFollow,
  setDefaultCapabilities,
  setGroupMetadata,
  setGroupVisibility,
} from "./settings.ts";
import { addGroupMembers, listGroupMembers, removeGroupMembers } from "./members.ts";
import { setMemberCapabilities, setMemberRole } from "./rights.ts";

/** The governance tools, in listing order. */
export function governanceTools(deps: ToolDeps): Tool[] {
  return [
    createNamespace(deps),
    deleteNamespace(deps),
    inviteToNamespace(deps),
    joinNamespace(deps),
    leaveNamespace(deps),
    describeGroup(deps),
    syncGroup(deps),
    upgradeGroup(deps),
    groupUpgradeStatus(deps),
    deleteGroup(deps),
    leaveGroup(deps),
    detachContext(deps),
    listGroupMembers(deps),
    addGroupMembers(deps),
    removeGroupMembers(deps),
    setMemberRole(deps),
    setMemberCapabilities(deps),
    createGroup(deps),
    setGroupVisibility(deps),
    setGroupMetadata(deps),
    setDefaultCapabilities(deps),
    setAutoFollow(deps),
    joinOpenGroup(deps),
  ];
}
