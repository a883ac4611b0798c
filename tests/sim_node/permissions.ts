// The guard's per-route permission map for the routes a client of this node uses, after core's validator
// (crates/auth/src/auth/permissions/validator.rs, get_permissions_for_path_with_params and the fixed table):
// each route needs one permission; an `/admin-api/*` route the map does not name needs `admin` (:621-622), and
// so does the ABI route, which the map leaves out. Scopes (`[id,…]`) are not modelled: a granted permission
// covers a required one when it is `admin`, the same, or a parent of it (`blob` covers `blob:get`).

const ROUTES: [method: string, path: RegExp, permission: string][] = [
  ["POST", /^\/jsonrpc$/, "context:execute"],
  ["GET", /^\/admin-api\/applications$/, "application:list"],
  ["GET", /^\/admin-api\/applications\/[^/]+$/, "application:list"],
  ["POST", /^\/admin-api\/install-application$/, "application:install"],
  ["GET", /^\/admin-api\/contexts$/, "context:list"],
  ["POST", /^\/admin-api\/contexts$/, "context:create"],
  ["GET", /^\/admin-api\/contexts\/[^/]+$/, "context:list"],
  ["DELETE", /^\/admin-api\/contexts\/[^/]+$/, "context:delete"],
  ["GET", /^\/admin-api\/contexts\/for-application\/[^/]+$/, "context:list"],
  ["POST", /^\/admin-api\/contexts\/[^/]+\/join$/, "context:execute"],
  ["POST", /^\/admin-api\/alias\/create\/context$/, "context:alias:create"],
  ["POST", /^\/admin-api\/alias\/lookup\/context\/[^/]+$/, "context:alias:lookup"],
  ["GET", /^\/admin-api\/identity$/, "namespace:list"],
  ["GET", /^\/admin-api\/namespaces$/, "namespace:list"],
  ["POST", /^\/admin-api\/namespaces$/, "namespace:create"],
  ["POST", /^\/admin-api\/namespaces\/[^/]+\/(invite|join|leave)$/, "namespace:manage"],
  ["POST", /^\/admin-api\/namespaces\/[^/]+\/groups$/, "group:create"],
  ["POST", /^\/admin-api\/groups$/, "group:create"],
  ["GET", /^\/admin-api\/groups\/[^/]+(\/.*)?$/, "group:list"],
  ["POST", /^\/admin-api\/groups\/[^/]+(\/.*)?$/, "group:manage"],
  ["PUT", /^\/admin-api\/groups\/[^/]+(\/.*)?$/, "group:manage"],
  ["PUT", /^\/admin-api\/blobs$/, "blob:add"],
  ["GET", /^\/admin-api\/blobs$/, "blob:list"],
  ["GET", /^\/admin-api\/blobs\/[^/]+$/, "blob:get"],
  ["DELETE", /^\/admin-api\/blobs\/[^/]+$/, "blob:remove"],
  // `/sse` is outside `/admin-api`: any valid token (validator.rs, the note above its admin fallback).
  ["GET", /^\/sse$/, ""],
  ["POST", /^\/sse\/subscription$/, ""],
];

/** The permission a request needs (`admin` for any admin route the map leaves out). */
export function requiredPermission(method: string, path: string): string {
  const route = ROUTES.find(([m, re]) => m === method && re.test(path));
  return route ? route[2] : "admin";
}

/** Whether `granted` covers `required`. */
export function permits(granted: readonly string[], required: string): boolean {
  if (required === "") return true;
  return granted.some((g) => g === "admin" || g === required || required.startsWith(`${g}:`));
}

/** The permissions of the key an app typically gets (quoted in core PR #3569): no admin, so no ABI route. */
export const APP_CLIENT_PERMISSIONS = [
  "context:list",
  "context:create",
  "context:execute",
  "application:list",
  "namespace",
  "group",
  "blob",
  "context:alias",
] as const;
