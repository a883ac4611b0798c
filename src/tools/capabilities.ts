// A group member's capabilities by name: core's MemberCapabilities bits (crates/context/config/src/lib.rs),
// read and written as names by set_member_capabilities and checked by create_context's explanation.

/** core's MemberCapabilities bits by name (crates/context/config/src/lib.rs). */
export const CAPABILITIES = {
  create_context: 1 << 0,
  invite_members: 1 << 1,
  join_open_subgroups: 1 << 2,
  manage_members: 1 << 3,
  manage_application: 1 << 4,
  create_subgroup: 1 << 5,
  delete_subgroup: 1 << 6,
  manage_visibility: 1 << 7,
  manage_metadata: 1 << 8,
  /** CAN_AUTHOR_ON_BEHALF, newer core only (crates/context/config/src/lib.rs after 051f0848): older nodes drop it. */
  author_on_behalf: 1 << 9,
} as const;
export const CAPABILITY_NAMES = Object.keys(CAPABILITIES) as [keyof typeof CAPABILITIES];

/** The names of the bits set in `bits` (an unknown bit as `bit_<n>`). */
export function capabilityNames(bits: number): string[] {
  const names: string[] = [];
  for (let bit = 0; bit < 32; bit++) {
    if ((bits & (1 << bit)) === 0) continue;
    const name = Object.entries(CAPABILITIES).find(([, v]) => v === 1 << bit)?.[0];
    names.push(name ?? `bit_${bit}`);
  }
  return names;
}

/** `bits` with `grant` set and `revoke` cleared (revoking wins over granting the same name). */
export function withCapabilities(bits: number, grant: string[], revoke: string[]): number {
  let next = bits;
  for (const name of grant) next |= CAPABILITIES[name as keyof typeof CAPABILITIES];
  for (const name of revoke) next &= ~CAPABILITIES[name as keyof typeof CAPABILITIES];
  return next >>> 0;
}

/** What each capability lets its holder do, in a person's words (the questions before granting one say it). */
const POWERS: Record<string, string> = {
  create_context: "create contexts",
  invite_members: "invite others",
  join_open_subgroups: "join open subgroups",
  manage_members: "add and remove members",
  manage_application: "upgrade the group's app",
  create_subgroup: "create subgroups",
  delete_subgroup: "delete subgroups (from every member's node)",
  manage_visibility: "open restricted subgroups to every member",
  manage_metadata: "rename the group, its contexts and members",
  author_on_behalf: "write on others' behalf",
};

/** One sentence saying what holders of `names` may then do, for the question before granting them. */
export function capabilityPower(names: readonly string[]): string {
  return `Its holder may then ${names.map((n) => POWERS[n] ?? n).join(", ")}.`;
}
