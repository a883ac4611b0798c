import assert from "assert";
import { makeInvitation, verifyInvitation } from "./invitation.ts";
import { parseLossless, stringifyExact } from "./json.ts";
import { createState } from "./state.ts";
import type { Group } from "./network.ts";

const state = createState("invitation-test", {
  keepAbiDocs: false,
  installUrlChecks: true,
  abiRoute: true,
  withIdentity: true,
});
const group = { id: "ab".repeat(32), targetApplicationId: "app", appKey: "cd".repeat(32) } as Group;

Deno.test("an invitation verifies after an exact round trip through JSON text", () => {
  const signed = makeInvitation(state, group);
  const received = parseLossless(stringifyExact(signed));
  assert.deepEqual(verifyInvitation(received), { groupId: group.id, role: "Member" });
});

Deno.test("an altered, unsigned or non-object invitation is refused with a reason", () => {
  const signed = makeInvitation(state, group) as { invitation: Record<string, unknown> };
  const altered = structuredClone(signed);
  altered.invitation.expiration_timestamp = 5;
  assert.match(String(verifyInvitation(altered)), /invalid invitation signature/);
  const { inviter_signature: _, ...unsigned } = signed as Record<string, unknown>;
  assert.match(String(verifyInvitation(unsigned)), /no inviter_signature/);
  assert.match(String(verifyInvitation("text")), /must be the signed invitation object/);
});
