// What each toolset needs of a credential, in core's permission names (crates/auth/src/auth/permissions/
// validator.rs): a granted permission covers a required one when it is `admin`, the same, or a parent of it
// (`blob` covers `blob:get`). Every `/admin-api/*` route the validator does not map is `admin` only: the node's
// peers, network status and usage among them, so node_status leaves those empty for a scoped key.

/** The permissions each toolset's tools need (umbrellas where the validator accepts one). */
export const TOOLSET_PERMISSIONS: Record<string, readonly string[]> = {
  core: ["application:list", "context", "namespace:list"],
  apps: ["application:list", "context:list", "context:execute"],
  blobs: ["application", "blob"],
  governance: ["namespace", "group"],
};

/** Whether `granted` covers `required`, as core's validator judges it. */
export function covers(granted: readonly string[], required: string): boolean {
  return granted.some((g) => g === "admin" || g === required || required.startsWith(`${g}:`));
}

/** The permissions of `toolset` that `granted` does not cover. */
export function missingFor(toolset: string, granted: readonly string[]): string[] {
  return (TOOLSET_PERMISSIONS[toolset] ?? []).filter((p) => !covers(granted, p));
}
