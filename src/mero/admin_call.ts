// One admin API call: the `/admin-api` prefix, the caller's CallOptions, and the shape the answer must
// have. Shared by the endpoint modules (admin.ts, admin_groups.ts); it knows no endpoint itself.

import type { CallOptions, HttpCore, RequestSpec } from "./http.ts";
import type { Shape } from "./shape.ts";

/** The admin call over an HTTP core; `extra` adds a body, a query, a timeout or a byte response. */
export function adminCall(http: HttpCore) {
  return <T>(
    method: RequestSpec["method"],
    path: string,
    options: CallOptions | undefined,
    expect: Shape | undefined,
    extra: Partial<RequestSpec> = {},
  ) => http.request<T>({ method, path: `/admin-api${path}`, call: options, expect, ...extra });
}

/** Sends one request to `/admin-api<path>` and returns its unwrapped payload, checked against `expect`. */
export type AdminCall = ReturnType<typeof adminCall>;
