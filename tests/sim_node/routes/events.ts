// `GET /sse` and `POST /sse/subscription`, at the node's root whatever the path prefix (core
// crates/server/src/sse.rs); the session endpoint is not used by mero-mcp and not simulated.

import { openStream, subscription } from "../events.ts";
import { bare } from "../http.ts";
import type { Route } from "../router.ts";

/** The SSE routes. */
export const eventRoutes: Route[] = [
  {
    method: "GET",
    pattern: "/sse",
    handler: ({ node, req }) => node.events ? openStream(node.events, req) : bare(404),
  },
  {
    method: "POST",
    pattern: "/sse/subscription",
    json: true,
    handler: ({ node, body }) => node.events ? subscription(node.events, node, body) : bare(404),
  },
];
