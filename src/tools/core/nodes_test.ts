import assert from "assert";
import { NodeHttpError } from "../../mero/mod.ts";
import type { ToolDeps } from "../deps.ts";
import { CONNECTED, ctx, fakeDeps, pick, type TestTool } from "../../testing/tool_deps.ts";
import { nodeTools } from "./nodes.ts";
import { authProblem, healthProblem } from "../../node/health.ts";

function tool(deps: ToolDeps, name: string): TestTool {
  return pick(nodeTools(deps), name);
}

function text(result: { content: unknown }): string {
  return (result.content as { text: string }[])[0].text;
}

const httpError = (status: number, authError: string | null = null, body = "") =>
  new NodeHttpError({
    status,
    method: "GET",
    url: "http://localhost:2528/admin-api/applications",
    path: "/admin-api/applications",
    body,
    authError,
  });

Deno.test("authProblem: ok when the node answered, what to do when it refused, unknown when unreachable", () => {
  const cases: [unknown, RegExp][] = [
    [httpError(401), /requires authentication/],
    [httpError(403, "permission_denied"), /permission/],
    [httpError(401, "token_expired"), /expired/],
    [httpError(429), /Too many failed login/],
    [httpError(500, null, "boom"), /^ok$/],
    [httpError(404), /^ok$/],
    [httpError(0), /^not checked: cannot reach the node/],
  ];
  for (const [error, expected] of cases) assert.match(authProblem(error), expected);
});

Deno.test("healthProblem reports the status a 503 health answer carries", () => {
  const down = httpError(503, null, '{"data":{"status":"store_unavailable"}}');
  assert.equal(healthProblem(down), "store_unavailable (HTTP 503)");
  assert.match(healthProblem(httpError(0)), /cannot reach the node/);
});

Deno.test("node_status forces the session, then checks health and auth", async () => {
  const { deps, calls } = fakeDeps({
    health: () => ({ status: "alive" }),
    listApplications: () => ({ apps: [] }),
  });
  const status = JSON.parse(text(await tool(deps, "node_status").call({}, ctx)));
  assert.deepEqual(status, {
    health: "alive",
    identity: null,
    ...CONNECTED,
    auth: "ok",
    credential: { source: null, scope: "none: no token is sent" },
    // A node without the readiness, peers, network and usage routes (older than core's): those stay null.
    ready: null,
    peers: null,
    network: null,
    usage: null,
    events: "no context watched (the stream opens when one is)",
    notAnswering: ["app com.x.broken: ABI not valid"],
  });
  for (const call of calls) {
    const options = call.args.at(-1) as { signal: AbortSignal; traceparent: string };
    assert.equal(options.signal, ctx.signal);
    assert.equal(options.traceparent, ctx.traceparent);
  }
});

Deno.test("node_status answers, not fails, when no node can be found", async () => {
  const { deps, calls } = fakeDeps({}, {
    connect: () => Promise.reject(new Error("No Calimero node was found.")),
  });
  const result = await tool(deps, "node_status").call({}, ctx);
  assert.ok(!result.isError);
  const status = JSON.parse(text(result));
  assert.equal(status.health, "not connected: No Calimero node was found.");
  assert.match(status.auth, /^not checked/);
  assert.equal(status.url, null);
  assert.equal(calls.length, 0);
});

Deno.test("node_status says what is wrong with auth while health (public) is fine", async () => {
  const { deps } = fakeDeps({
    health: () => ({ status: "alive" }),
    listApplications: () => Promise.reject(httpError(401)),
  });
  const status = JSON.parse(text(await tool(deps, "node_status").call({}, ctx)));
  assert.equal(status.health, "alive");
  assert.match(status.auth, /CALIMERO_AUTH_TOKEN/);
});

Deno.test("list_nodes marks the scanned node the session drives as active (spellings compared canonically)", async () => {
  const { deps, calls } = fakeDeps({});
  const { nodes } = JSON.parse(text(await tool(deps, "list_nodes").call({}, ctx)));
  assert.deepEqual(nodes, [{ name: "default", url: "http://localhost:2528", active: true }]);
  assert.equal(calls.length, 0, "no node call");
});
