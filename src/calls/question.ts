// The words a person reads before an app method that cannot be undone runs: which method, of which app and
// version (as installed now), in which context (resolved). Such a method is marked `destructive` by the app's ABI or
// by the person's app-marks.json (src/apps/marks.ts): the question names both, since the method no longer says which.

import type { AbiMethod } from "../apps/abi_format.ts";
import type { CatalogUnit } from "../apps/catalog.ts";

/** Whether a method must be confirmed by a person before it runs. */
export function needsConfirmation(method: AbiMethod): boolean {
  return method.destructive === true;
}

/** One line naming a destructive call's exact target. */
export function methodTarget(unit: CatalogUnit, method: AbiMethod, context: string | null): string {
  const version = unit.version ? ` ${unit.version}` : "";
  const where = context === null ? "" : ` in context ${context}`;
  return `"${method.name}" of ${unit.package}${version}${where}`;
}

/** The question for one destructive call named by {@link methodTarget}. */
export function targetQuestion(target: string): string {
  return `Run ${target}? It is marked destructive (by the app's ABI or your app-marks.json): it cannot be undone.`;
}
