// Namespace invitations: a signed-looking object with snake_case keys in a fixed order. The
// signature is a SHA-256 over the exact serialisation of everything but the signature, in the order
// the keys arrive, so a reordered key, a changed value or a rounded integer is rejected on join.

import { fromHex, sha256, sha256Hex, toHex } from "./ids.ts";
import { stringifyExact } from "./json.ts";
import { base58Decode } from "./base58.ts";
import type { Group } from "./network.ts";
import { nextSeed, type NodeState } from "./state.ts";

/** Roles as the invitation's `invited_role` byte encodes them. */
export const ROLE_CODES = ["Admin", "Member", "ReadOnly", "ReadOnlyTee"];

/** core's default validity: a year (invite_namespace.rs). */
const YEAR_S = 365 * 24 * 3600;

function sign(unsigned: Record<string, unknown>): string {
  return sha256Hex(`calimero-sim-invitation\0${stringifyExact(unsigned)}`);
}

/**
 * A signed invitation to `group`, valid for `validForSeconds` (a year by default), as core signs one: its
 * `expiration_timestamp` is when it ends, in seconds since the epoch (create_group_invitation.rs), and the answer
 * names the inviter's account beside the signature.
 */
export function makeInvitation(
  state: NodeState,
  group: Group,
  validForSeconds: number = YEAR_S,
): Record<string, unknown> {
  const invitation = {
    inviter_identity: state.identity.publicKey,
    group_id: [...fromHex(group.id)],
    expiration_timestamp: Math.floor(Date.now() / 1000) + validForSeconds,
    secret_salt: [...sha256(nextSeed(state, "salt"))],
    invited_role: 1,
  };
  // The app and its key travel as byte arrays beside the signed invitation (core SignedGroupOpenInvitation).
  const application_id = [...(base58Decode(group.targetApplicationId) ?? new Uint8Array(32))];
  const app_key = [...fromHex(group.appKey)];
  const unsigned = { invitation, application_id, app_key };
  return {
    invitation,
    inviter_signature: sign(unsigned),
    inviter_account: state.identity.accountId,
    application_id,
    app_key,
  };
}

/** Why an invitation past its expiry is refused (core join_group.rs: a bare 500 at 051f0848). */
export const EXPIRED = "invitation expired";

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
  const { inviter_signature: signature, inviter_account: _account, ...rest } = signed as Record<
    string,
    unknown
  >;
  if (typeof signature !== "string") return "invitation has no inviter_signature";
  if (sign(rest) !== signature) {
    return "invalid invitation signature: pass the invitation exactly as issued (same keys, same order, exact integers)";
  }
  const inner = rest.invitation as Record<string, unknown>;
  const expires = inner.expiration_timestamp;
  if (typeof expires !== "bigint" && typeof expires !== "number") return "invitation has no expiry";
  // 0 never expires; otherwise seconds since the epoch, compared first (core join_group.rs).
  if (BigInt(expires) !== 0n && BigInt(expires) < BigInt(Math.floor(Date.now() / 1000))) {
    return EXPIRED;
  }
  return {
    groupId: toHex(new Uint8Array(inner.group_id as number[])),
    role: ROLE_CODES[inner.invited_role as number] ?? "Member",
  };
}
