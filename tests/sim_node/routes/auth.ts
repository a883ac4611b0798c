// `/auth/token`, `/auth/refresh` and `/admin/client-key`, present only in embedded auth mode.

import { clientKey, login, refresh } from "../auth.ts";
import { bodyObject, notAnObject, type Route } from "../router.ts";

/** The auth routes; the server mounts them only in embedded auth mode. */
export const authRoutes: Route[] = [
  {
    method: "POST",
    pattern: "/auth/token",
    json: true,
    handler: ({ node, body }) => {
      const input = bodyObject(body);
      return input ? login(node.auth!, input) : notAnObject();
    },
  },
  {
    method: "POST",
    pattern: "/admin/client-key",
    json: true,
    handler: ({ node, req, body }) => {
      const input = bodyObject(body);
      return input ? clientKey(node.auth!, req, input) : notAnObject();
    },
  },
  {
    method: "POST",
    pattern: "/auth/refresh",
    json: true,
    handler: ({ node, body }) => {
      const input = bodyObject(body);
      return input ? refresh(node.auth!, input) : notAnObject();
    },
  },
];
