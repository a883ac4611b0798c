import assert from "assert";
import { join } from "path";
import { parseConfig } from "../../config/config.ts";
import { runDoctor } from "./doctor.ts";
import type { DoctorReport } from "./report.ts";
import { CLIENT_TOOL_LIMITS, toolsSection } from "./apps.ts";
import { renderDoctor } from "./render.ts";
import { stateDirSection } from "./state.ts";
import { setLogLevel } from "../../lib/log.ts";
import type { Snapshot } from "../../server/surface.ts";
import type { Tool, ToolGroup } from "../../tools/tool.ts";
import { startSimNode } from "../../../tests/sim_node/mod.ts";

setLogLevel("error");

async function configFor(env: Record<string, string>, argv: string[] = []) {
  const home = await Deno.makeTempDir({ prefix: "mero-doctor-unit-" });
  const stateDir = join(home, "state");
  await Deno.mkdir(stateDir, { mode: 0o700 });
  return parseConfig(["doctor", ...argv], {
    HOME: home,
    CALIMERO_MCP_STATE_DIR: stateDir,
    CALIMERO_NODE_HOME: join(home, "calimero"),
    CALIMERO_MCP_PROBE_PORTS: "1",
    ...env,
  });
}

function section(report: DoctorReport, title: string) {
  return report.sections.find((s) => s.title === title)!.lines;
}

function snapshotOf(groups: ToolGroup[], notAnswering: string[] = []): Snapshot {
  const tools = groups.map((group, i) => ({ name: `t${i}`, group }) as unknown as Tool);
  return {
    tools: new Map(tools.map((t) => [t.name, t])),
    listed: [],
    guides: new Map(),
    prompts: new Map(),
    notAnswering,
  };
}

Deno.test("a missing named node fails discovery once, and the node checks say they were not run", async () => {
  const report = await runDoctor(await configFor({ CALIMERO_NODE_NAME: "nope" }));
  assert.equal(report.works, false);
  const named = section(report, "Discovery").find((l) => l.label.startsWith("named"))!;
  assert.equal(named.status, "fail");
  assert.match(named.detail, /No node named "nope"/);
  assert.deepEqual(section(report, "Node").map((l) => l.status), ["skip"]);
  assert.equal(report.failures.length, 1);
});

Deno.test("an unknown --apps name is a warning, and the other apps keep their tools", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  try {
    const report = await runDoctor(
      await configFor({ CALIMERO_NODE_URL: sim.url }, ["--apps", "kv-store,ghost"]),
    );
    assert.equal(report.works, true, report.failures.join("\n"));
    const tools = section(report, "Tools");
    assert.ok(tools.some((l) => l.status === "warn" && l.detail.includes('"ghost"')));
    const kv = section(report, "Apps").find((l) => l.label === "com.calimero.kv-store")!;
    assert.match(kv.detail, /10 tools/);
  } finally {
    await sim.close();
  }
});

Deno.test("the apps toolset switched off gives each app 0 tools and says why", async () => {
  const sim = await startSimNode({ apps: ["kv-store"] });
  try {
    const report = await runDoctor(
      await configFor({ CALIMERO_NODE_URL: sim.url }, ["--toolsets", "core"]),
    );
    const kv = section(report, "Apps").find((l) => l.label === "com.calimero.kv-store")!;
    assert.match(kv.detail, /0 tools \(the apps toolset is off\)/);
  } finally {
    await sim.close();
  }
});

Deno.test("a node that requires auth when none is configured fails with the settings that provide it", async () => {
  const sim = await startSimNode({ auth: { username: "u", password: "p-123456" }, apps: [] });
  try {
    const report = await runDoctor(await configFor({ CALIMERO_NODE_URL: sim.url }));
    assert.equal(report.works, false);
    const works = section(report, "Auth").find((l) => l.label === "works")!;
    assert.equal(works.status, "fail");
    assert.match(works.detail, /requires authentication.*CALIMERO_AUTH_TOKEN/);
  } finally {
    await sim.close();
  }
});

Deno.test("a token the node rejects is reported as refused, not as missing", async () => {
  const sim = await startSimNode({ auth: { username: "u", password: "p-123456" }, apps: [] });
  try {
    const report = await runDoctor(
      await configFor({
        CALIMERO_NODE_URL: sim.url,
        CALIMERO_AUTH_TOKEN: "not-a-token-this-node-issued",
      }),
    );
    assert.equal(report.works, false);
    const works = section(report, "Auth").find((l) => l.label === "works")!;
    assert.equal(works.status, "fail");
    assert.match(
      works.detail,
      /refused the token it was given .*expired, revoked, or issued by another node/,
    );
    assert.doesNotMatch(works.detail, /requires authentication/);
  } finally {
    await sim.close();
  }
});

Deno.test("a 503 health answer fails with the node's status", async () => {
  const sim = await startSimNode({ apps: [] });
  sim.setHealth("store_unavailable");
  try {
    const report = await runDoctor(await configFor({ CALIMERO_NODE_URL: sim.url }));
    const health = section(report, "Node").find((l) => l.label === "health")!;
    assert.equal(health.status, "fail");
    assert.match(health.detail, /store_unavailable \(HTTP 503\)/);
  } finally {
    await sim.close();
  }
});

const LIMIT_CASES: { total: number; over: number[] }[] = [
  { total: 30, over: [] },
  { total: 45, over: [40] },
  { total: 60, over: [40, 50] },
  { total: 130, over: [40, 50, 128] },
];

for (const c of LIMIT_CASES) {
  Deno.test(`${c.total} tools are over the client limits ${c.over.join(", ") || "none"}`, async () => {
    const config = await configFor({});
    const groups: ToolGroup[] = Array.from(
      { length: c.total },
      (_, i) => i < 14 ? "core" : i < 30 ? "blobs" : "generated",
    );
    const snapshot = snapshotOf(groups);
    const state = {
      apps: [],
      units: [],
      notAnswering: [],
      leftOut: new Map(),
      fingerprint: "",
      loaded: true,
    };
    const lines = toolsSection({ state, snapshot, config }, snapshot, config, null).lines;
    // One line: over the largest limit a warning, over a smaller one a note, under all of them "fits".
    const line = lines.find((l) => l.label === "limits")!;
    const largest = CLIENT_TOOL_LIMITS[CLIENT_TOOL_LIMITS.length - 1];
    assert.equal(
      line.status,
      c.over.length === 0 ? "ok" : c.over.includes(largest) ? "warn" : "info",
    );
    if (c.over.length > 0) {
      const listed = c.over.length < 2
        ? `${c.over[0]}`
        : `${c.over.slice(0, -1).join(", ")} and ${c.over.at(-1)}`;
      assert.match(line.detail, new RegExp(`^${c.total} tools, over ${listed} \\(by `));
    }
    const advice = lines.find((l) => l.label === "advice");
    assert.equal(advice !== undefined, c.over.length > 0);
    if (advice) assert.match(advice.detail, /--toolsets core,apps.*\n.*--apps.*\n.*--max-tools 40/);
  });
}

Deno.test("without the app list the tool count is a floor and is not judged against the limits", async () => {
  const config = await configFor({});
  const lines = toolsSection(null, snapshotOf(["core"]), config, "no node was found").lines;
  assert.deepEqual(lines.map((l) => l.label), ["count", "mode", "confirm"], "no limit lines");
  assert.match(lines[0].detail, /generated tools unknown: no node was found/);
});

Deno.test("state files readable by others are warnings with the chmod that fixes them", async () => {
  if (Deno.build.os === "windows") return;
  const dir = await Deno.makeTempDir();
  await Deno.chmod(dir, 0o755);
  await Deno.writeTextFile(join(dir, "handle.key"), "k", { mode: 0o600 });
  await Deno.writeTextFile(join(dir, "tokens-0123456789abcdef.json"), "{}");
  await Deno.chmod(join(dir, "tokens-0123456789abcdef.json"), 0o644);
  const { lines } = await stateDirSection(dir, null);
  const byLabel = new Map(lines.map((l) => [l.label, l]));
  assert.equal(byLabel.get("directory")!.status, "warn");
  assert.match(byLabel.get("directory")!.detail, /0755.*chmod 700/);
  assert.equal(byLabel.get("handle.key")!.status, "ok");
  const tokens = byLabel.get("tokens-0123456789abcdef.json")!;
  assert.equal(tokens.status, "warn");
  assert.match(tokens.detail, /0644.*chmod 600.*\(cached tokens\)/);
});

Deno.test("on Windows the state directory section says file modes are not enforced", async () => {
  const dir = await Deno.makeTempDir();
  const { lines } = await stateDirSection(dir, null, "windows");
  assert.ok(lines.some((l) => /not enforced on Windows/.test(l.detail)));
  assert.ok(lines.every((l) => l.status !== "warn"));
});

Deno.test("a server that cannot start in the state directory fails the report", async () => {
  const dir = await Deno.makeTempDir();
  const { lines } = await stateDirSection(dir, new Error("handle.key: permission denied"));
  assert.equal(lines[0].status, "fail");
  assert.match(lines[0].detail, /cannot start.*permission denied/);
});

Deno.test("the text report lists each failure under the verdict, without colour when off", () => {
  const report: DoctorReport = {
    version: "0.0.0",
    works: false,
    failures: ["Node: cannot reach the node at http://localhost:1"],
    sections: [{
      title: "Node",
      lines: [{
        status: "fail",
        label: "health",
        detail: "cannot reach the node at http://localhost:1",
      }],
    }],
  };
  const text = renderDoctor(report, { color: false });
  assert.ok(!text.includes("\x1b["));
  assert.match(text, /FAIL health cannot reach/);
  assert.match(text, /Result: the server would not work:\n {2}- Node: cannot reach/);
  assert.ok(renderDoctor(report, { color: true }).includes("\x1b[31m"));
});

Deno.test("an address that holds another service fails health as not a Calimero node and checks no auth", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("<html>Not Found</html>", { status: 404 }),
  );
  try {
    const report = await runDoctor(
      await configFor({ CALIMERO_NODE_URL: `http://127.0.0.1:${server.addr.port}` }),
    );
    assert.equal(report.works, false);
    const node = report.sections.flatMap((s) => s.lines).find((l) => l.label === "health")!;
    assert.equal(node.status, "fail");
    assert.match(node.detail, /not a Calimero node/);
    assert.ok(
      !report.sections.flatMap((s) => s.lines).some((l) =>
        l.detail === "ok" && /auth/.test(l.label)
      ),
    );
  } finally {
    await server.shutdown();
  }
});
