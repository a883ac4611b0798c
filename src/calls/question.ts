// The words a person reads before an app method that cannot be undone runs: which method, of which app and
// version, in which context. The app's ABI marks such a method `destructive`.

import type { AbiMethod } from "../apps/abi_format.ts";
import type { CatalogUnit } from "../apps/catalog.ts";
import { readUnverified } from "./handle.ts";

/** Whether a method must be confirmed by a person before it runs. */
export function needsConfirmation(method: AbiMethod): boolean {
  return method.destructive === true;
}

/** The context a call names, as far as can be told before the gate: its handle's, else its `context` argument. */
export function namedContextOf(handle: unknown, context: unknown): string | null {
  const bound = typeof handle === "string" ? readUnverified(handle)?.c ?? null : null;
  return bound ?? (typeof context === "string" && context !== "" ? context : null);
}

/** One line naming a destructive call's exact target. */
export function methodTarget(unit: CatalogUnit, method: AbiMethod, context: string | null): string {
  const version = unit.version ? ` ${unit.version}` : "";
  const where = context === null ? "" : ` in context ${context}`;
  return `"${method.name}" of ${unit.package}${version}${where}`;
}

/** The question for one destructive method call. */
export function methodQuestion(
  unit: CatalogUnit,
  method: AbiMethod,
  context: string | null,
): string {
  return targetQuestion(methodTarget(unit, method, context));
}

/** The question for one destructive call named by {@link methodTarget}. */
export function targetQuestion(target: string): string {
  return `Run ${target}? The app marks it destructive: it cannot be undone.`;
}
