// A URL that is not a Calimero node (another web service, or a wrong path prefix): node_status and doctor say so,
// instead of that service's raw error body and "auth": "ok".

import assert from "assert";
import { callOk, connect, ERAS, isolatedEnv } from "./harness.ts";

/** Another service on a local port: an HTML 404 for every path, as a web server answers. */
function foreignServer(answer: () => Response) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, answer);
}

const SERVICES: [string, () => Response][] = [
  [
    "an HTML 404",
    () =>
      new Response("<html><body>Not Found</body></html>", {
        status: 404,
        headers: { "content-type": "text/html" },
      }),
  ],
  ["a JSON API of another shape", () => Response.json({ message: "hello from another API" })],
];

for (const [what, answer] of SERVICES) {
  Deno.test(`node_status on ${what}: not a Calimero node, auth not checked`, async () => {
    const server = foreignServer(answer);
    const url = `http://127.0.0.1:${server.addr.port}`;
    const conn = await connect({
      era: ERAS[1],
      env: await isolatedEnv({ CALIMERO_NODE_URL: url }),
    });
    try {
      const status = await callOk(conn, "node_status");
      assert.match(status.health, /^not a Calimero node: .* Check CALIMERO_NODE_URL/);
      assert.match(status.auth, /not checked: the address does not hold a Calimero node/);
      assert.equal(status.ready, null, "another service's answers say nothing of readiness");
      assert.doesNotMatch(status.health + status.auth, /Not Found<\/body>|hello from another API/);
      assert.doesNotMatch(JSON.stringify(status), /<\/body>/, "no markup anywhere");
    } finally {
      await conn.close();
      await server.shutdown();
    }
  });
}
