// Namespace invitations: a signed-looking object with snake_case keys in a fixed order. The
// signature is a SHA-256 over the exact serialisation of everything but the signature, in the order
// the keys arrive, so a reordered key, a changed value or a rounded integer is rejected on join.

import { fromHex, sha256, sha256Hex, toHex } from "./ids.ts";
import { stringifyExact } from "./json.ts";
import type { Group } from "./network.ts";
import { nextSeed, type NodeState } from "./state.ts";

/** Roles as the invitation's `invited_role` byte encodes them. */
export const ROLE_CODES = ["Admin", "Member", "ReadOnly", "ReadOnlyTee"];

const DAY_NS = 86_400n * 1_000_000_000n;

function sign(unsigned: Record<string, unknown>): string {
  return sha256Hex(`calimero-sim-invitation\0${stringifyExact(unsigned)}`);
}

/**
 * A signed invitation to `group`, valid for a day. `expiration_timestamp` is in nanoseconds with
 * non-zero low digits, so it is above 2^53 and a client that rounds it breaks the signature.
 */
export function makeInvitation(state: NodeState, group: Group): Record<string, unknown> {
  const invitation = {
    inviter_identity: state.identity.publicKey,
    group_id: [...fromHex(group.id)],
    expiration_timestamp: BigInt(Date.now()) * 1_000_000n + DAY_NS + 123_456_789n,
    secret_salt: [...sha256(nextSeed(state, "salt"))],
    invited_role: 1,
  };
  const unsigned = { invitation, application_id: group.targetApplicationId };
  return { invitation, inviter_signature: sign(unsigned), application_id: unsigned.application_id };
}

/** What a verified invitation grants. */
export interface VerifiedInvitation {
  groupId: string;
  role: string;
}

/** Checks a signed invitation as received; a reason string when it must be rejected. */
export function verifyInvitation(signed: unknown): VerifiedInvitation | string {
  if (signed === null || typeof signed !== "object" || Array.isArray(signed)) {
    return "invitation must be the signed invitation object returned by invite";
  }
  const { inviter_signature: signature, ...rest } = signed as Record<string, unknown>;
  if (typeof signature !== "string") return "invitation has no inviter_signature";
  if (sign(rest) !== signature) {
    return "invalid invitation signature: pass the invitation exactly as issued (same keys, same order, exact integers)";
  }
  const inner = rest.invitation as Record<string, unknown>;
  const expires = inner.expiration_timestamp;
  if (typeof expires !== "bigint" && typeof expires !== "number") return "invitation has no expiry";
  if (BigInt(expires) < BigInt(Date.now()) * 1_000_000n) return "invitation expired";
  return {
    groupId: toHex(new Uint8Array(inner.group_id as number[])),
    role: ROLE_CODES[inner.invited_role as number] ?? "Member",
  };
}
