// What the node accepts as a context alias, written once: the tools' parameters, the context resolution and the
// configuration's `--channel` all ask it here.

/** 1–50 ASCII letters, digits, `.`, `_`, `-` (core crates/primitives/src/alias.rs). */
export const ALIAS_PATTERN = /^[A-Za-z0-9._-]{1,50}$/;

/** True when the node would accept `value` as an alias. */
export function isAlias(value: string): boolean {
  return ALIAS_PATTERN.test(value);
}
