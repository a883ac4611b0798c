// `/auth/token` and `/auth/refresh`, present only in embedded auth mode.

import { login, refresh } from "../auth.ts";
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
    pattern: "/auth/refresh",
    json: true,
    handler: ({ node, body }) => {
      const input = bodyObject(body);
      return input ? refresh(node.auth!, input) : notAnObject();
    },
  },
];
