// `/auth/token`, `/auth/refresh`, `/auth/login` and `/admin/client-key`, present only in embedded auth mode.

import { clientKey, issuePair, login, refresh } from "../auth.ts";
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
    // core serves its sign-in UI here (crates/auth/src/api/routes.rs `login_handler`); once the person signs in, the
    // UI sends the browser to `callback-url` with the pair in the fragment (what meroctl's callback page reads back,
    // crates/meroctl/src/auth.rs). The simulated node stands for a person who signs in at once: it answers with that
    // redirect, the pair carrying the `permissions` asked for.
    method: "GET",
    pattern: "/auth/login",
    handler: ({ node, req }) => {
      const url = new URL(req.url);
      const callback = url.searchParams.get("callback-url");
      if (callback === null) return new Response("callback-url is required", { status: 400 });
      const asked = (url.searchParams.get("permissions") ?? "admin").split(",").filter(Boolean);
      const pair = issuePair(node.auth!, undefined, asked);
      const fragment = new URLSearchParams({
        access_token: pair.access_token,
        refresh_token: pair.refresh_token,
      });
      return new Response(null, { status: 302, headers: { location: `${callback}#${fragment}` } });
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
