// What the simulated nodes of one process share, as peers of one network would: groups (with their
// members) and context cores (with their app state), by id. Each node keeps its own view of which
// namespaces and contexts it holds, so a namespace joined on a second node sees the first's writes.

/** A group or namespace (a namespace is a root group: `parentId` null). */
export interface Group {
  id: string;
  name: string | null;
  parentId: string | null;
  namespaceId: string;
  targetApplicationId: string;
  visibility: "open" | "restricted";
  metadata: { name: string | null; data: unknown };
  /** account id (hex) → role. */
  members: Map<string, string>;
  /** The account that created it: it never leaves (core `owner_identity`, ops/group/member_left.rs). */
  owner: string;
  /** account id → capability bits (core MemberCapabilities); none set is 0, as core's default. */
  capabilities: Map<string, number>;
  /**
   * Accounts an admin removed: only an admin adding them again readmits them, never an invitation (core
   * `MembershipError::RemovedFromGroup`, crates/governance-store/src/errors.rs; ops/group/member_removed.rs).
   */
  removed: Set<string>;
  appKey: string;
  createdAt: number;
  /** Names and data people gave its contexts and members (core `MetadataRecord`), by context id or account. */
  contextMetadata: Map<string, { name: string | null; data: Record<string, string> }>;
  memberMetadata: Map<string, { name: string | null; data: Record<string, string> }>;
  /** Capabilities a new member starts with (core `default_capabilities`, 0 by default). */
  defaultCapabilities: number;
  /** account → the auto-follow switches (core `SetMemberAutoFollowApiRequest`); absent: both on. */
  autoFollow: Map<string, { contexts: boolean; subgroups: boolean }>;
  /** The last upgrade this group went through (core `GroupUpgradeStatusApiData`), or null. */
  upgrade: GroupUpgrade | null;
  deleted: boolean;
}

/** A group upgrade's record, as core's `GET /groups/:id/upgrade/status` shows it (admin/mod.rs). */
export interface GroupUpgrade {
  fromVersion: string;
  toVersion: string;
  initiatedAt: number;
  initiatedBy: string;
  status: "in_progress" | "completed";
  localContextsTotal: number | null;
  localContextsSwapped: number | null;
  localContextsFailed: number | null;
  completedAt: number | null;
}

/** The shared part of a context: identity, app binding and the app's state. */
export interface ContextCore {
  id: string;
  applicationId: string;
  serviceName: string | null;
  groupId: string;
  name: string | null;
  applicationVersion: string | null;
  /** The app state and a write counter (drives `contextStateHash` and `dagHeads`). */
  box: { state: Record<string, unknown>; version: number };
}

/**
 * Which nodes an event reaches: every node holding the context, or only the node that acted (`origin`), or only
 * the others (`peers`: a delta applied from gossip).
 */
export type EventReach = { only: "all" } | { only: "origin" | "peers"; origin: object };

/** Registry shared by every simulated node in this process. */
export const network = {
  groups: new Map<string, Group>(),
  contexts: new Map<string, ContextCore>(),
  /**
   * Signing key (base58) → account (64 hex) of every node that founded or joined a namespace: core binds a
   * member's key to its account by the op that admits it (crates/context/src/member_account.rs).
   */
  keyAccounts: new Map<string, string>(),
  /** Every running node's event intake: a context event reaches each node, which sends it to its subscribers. */
  eventSinks: new Set<
    (contextId: string, event: Record<string, unknown>, to: EventReach) => void
  >(),
  /** Every running node's state, for what one node's act does on others (auto-follow of a new context). */
  nodes: new Set<import("./state.ts").NodeState>(),
};
