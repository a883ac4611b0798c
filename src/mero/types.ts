// Payload types of the node's admin API as this client returns them. Records keep the
// node's field names, except blobs, whose snake_case keys are mapped to camelCase.

/** Compiled artefacts of an application or one of its services. */
export interface ApplicationBlob {
  bytecode: string;
  compiled: string;
}

/** An installed application record (`signer_id` keeps the node's snake_case). */
export interface Application {
  id: string;
  blob: ApplicationBlob;
  size: number;
  source: string;
  /** JSON bytes of the bundle metadata. */
  metadata: number[];
  signer_id?: string;
  package?: string;
  version?: string;
  /** Named services of a multi-service bundle. */
  services?: Record<string, ApplicationBlob>;
}

/** A context as the node lists it. */
export interface Context {
  id: string;
  applicationId: string;
  serviceName?: string;
  contextStateHash: string;
  dagHeads?: number[][];
  applicationVersion?: string;
  name?: string;
  groupId?: string;
}

/** The node's own identity (`GET /identity`). */
export interface NodeIdentity {
  accountId: string;
  deviceId: string | null;
  publicKey: string;
  accountRootPublicKey?: string;
  [key: string]: unknown;
}

/**
 * The node's libp2p connectivity (core `NetworkStatusResponse`, crates/server/primitives/src/admin/mod.rs): strings
 * throughout, timestamps RFC 3339.
 */
export interface NetworkStatus {
  localPeerId: string;
  listenAddrs?: string[];
  externalAddrs?: string[];
  relays?: { peerId: string; reservationStatus: string }[];
  rendezvous?: { peerId: string; registrationStatus: string }[];
  directUpgrades?: { peerId: string; status: string; reason?: string | null }[];
  autonat?: { reachability: string; lastTestResult?: string | null };
  [key: string]: unknown;
}

/** One namespace's usage on this node (core `NamespaceUsage`): counts and approximate bytes. */
export interface NamespaceUsage {
  namespaceId: string;
  contextCount: number;
  memberCount: number;
  subgroupCount: number;
  bytes: { total: number; [key: string]: number };
}

/** A namespace: a root group bound to one application. */
export interface Namespace {
  namespaceId: string;
  appKey?: string;
  targetApplicationId?: string;
  name?: string;
  memberCount?: number;
  contextCount?: number;
  subgroupCount?: number;
  [key: string]: unknown;
}

/** A group record (`GET /groups/:id`). */
export interface GroupInfo {
  groupId: string;
  appKey: string;
  targetApplicationId: string;
  memberCount: number;
  contextCount: number;
  subgroupVisibility: string;
  metadata?: { name: string | null; data: Record<string, string>; [key: string]: unknown } | null;
  [key: string]: unknown;
}

/** A group member as listed; `identity` is the member's account (64 hex). */
export interface GroupMember {
  identity: string;
  role: string;
  [key: string]: unknown;
}

/** A member to add; `identity` is the member's signing key. */
export interface GroupMemberInput {
  identity: string;
  role: "Admin" | "Member" | "ReadOnly" | "ReadOnlyTee" | (string & Record<never, never>);
}

/** Who may join a subgroup: namespace members (open) or only added members (restricted). */
export type SubgroupVisibility = "open" | "restricted";

/** A signed namespace invitation: opaque, passed through with the same keys in the same order. */
export type Invitation = Record<string, unknown>;

/** A blob id and its size in bytes. */
export interface BlobInfo {
  blobId: string;
  size: number;
}

/** A `wasm-abi/1` manifest, returned verbatim. */
export type AbiManifest = Record<string, unknown>;
