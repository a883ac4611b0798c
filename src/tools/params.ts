// One definition (and one description) per identifier parameter, shared by every tool that takes it.

import { z } from "zod";
import { ALIAS_PATTERN } from "../primitives/alias.ts";

/** A string parameter that must not be empty (checked without widening the advertised schema). */
export function nonEmpty(description: string) {
  return z.string().refine((s) => s.trim() !== "", "must not be empty").describe(description);
}

/** An installed application by any name: id, package, its last segment or display name. */
export const applicationParam = nonEmpty("App id, package or name.");

/** A context by id only (for contexts this node may not know yet). */
export const contextIdParam = nonEmpty("Context id (base58).");

/** A context by id or by one of this node's aliases. */
export const contextParam = nonEmpty("Context id or alias.");

/** An alias as the node accepts it (a plain-text 400 or 422 otherwise). */
export const aliasParam = z.string().regex(
  ALIAS_PATTERN,
  "an alias is 1 to 50 letters, digits, '.', '_' or '-'",
).describe("Alias: 1-50 of A-Z a-z 0-9 . _ -");

/** A service of a multi-service app. */
export const serviceParam = nonEmpty("For a multi-service app.");

/** A namespace (the root group of an application). */
export const namespaceParam = nonEmpty("Namespace id (64 hex).");

/** A group (a namespace is a group too). */
export const groupParam = nonEmpty("Group id (64 hex).");

/** Who may join a subgroup. */
export const visibilityParam = z.enum(["open", "restricted"]).describe(
  "open: namespace members may join; restricted (default): only added members.",
);

/** An app handle, as select_app or describe_app returned it. */
export const handleParam = nonEmpty("From select_app.");
