// The plugins (issue 32): Claude Code's own validator passes the plugin and the marketplace; every manifest names
// this version and the npx line users install with; and the skill names only tools the server serves, with example
// calls that validate against those tools' input schemas as a real server lists them.

import assert from "assert";
import { Ajv2020 } from "ajv/dist/2020";
import denoJson from "../deno.json" with { type: "json" };
import { connect, isolatedEnv, ROOT } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";
import { has, installOnce, NPM, TEST_CACHE } from "./npm_tools.ts";

const PLUGIN = `${ROOT}plugins/mero-mcp`;
const SKILL = `${PLUGIN}/skills/calimero/SKILL.md`;
const CLAUDE_CODE = "2.1.332";
const PREFIX = `${TEST_CACHE}/claude-code-${CLAUDE_CODE}/`;

type Json = Record<string, unknown>;
const readJson = async (path: string) => JSON.parse(await Deno.readTextFile(path)) as Json;

const platform = `${Deno.build.os === "windows" ? "win32" : Deno.build.os}-${
  Deno.build.arch === "aarch64" ? "arm64" : "x64"
}`;
const available = await has(NPM);
// deno-lint-ignore no-console -- the printed reason for a skip
if (!available) console.error("plugin_test: the validator is skipped, npm is not on PATH");

/** Claude Code's CLI, installed once per machine (its platform binary comes as an optional dependency). */
async function claudeCode(): Promise<string> {
  const binary = `${PREFIX}node_modules/@anthropic-ai/claude-code-${platform}/claude${
    Deno.build.os === "windows" ? ".exe" : ""
  }`;
  await installOnce({
    prefix: PREFIX,
    spec: `@anthropic-ai/claude-code@${CLAUDE_CODE}`,
    installed: binary,
    ignoreScripts: true,
  });
  return binary;
}

/** `claude plugin validate --strict <path>`, with a home of its own. */
async function validate(path: string): Promise<{ ok: boolean; text: string }> {
  const home = await Deno.makeTempDir({ prefix: "mero-mcp-claude-" });
  try {
    const out = await new Deno.Command(await claudeCode(), {
      args: ["plugin", "validate", "--strict", path],
      env: { HOME: home, PATH: Deno.env.get("PATH") ?? "" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    return { ok: out.success, text };
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test({
  name:
    "Claude Code's validator passes the plugin (its channel, skill and MCP server) and the marketplace",
  ignore: !available,
  async fn() {
    const plugin = await validate(PLUGIN);
    assert.ok(plugin.ok, plugin.text);
    assert.match(
      plugin.text,
      /mcpServers: mero stdio npx \["-y","@calimero-network\/mero-mcp@\d+\.\d+\.\d+"\]/,
    );
    // The monitor that wakes a session without the channels preview: Claude Code reads it as one.
    assert.match(
      plugin.text,
      /monitors: calimero-contexts "npx -y @calimero-network\/mero-mcp@\d+\.\d+\.\d+ watch /,
    );
    assert.match(plugin.text, /Validation passed/);
    const market = await validate(ROOT);
    assert.ok(market.ok, market.text);
    // A broken manifest is refused: the validator is not passing everything.
    const broken = await Deno.makeTempDir({ prefix: "mero-mcp-broken-plugin-" });
    try {
      await Deno.mkdir(`${broken}/.claude-plugin`);
      const manifest = await readJson(`${PLUGIN}/.claude-plugin/plugin.json`);
      await Deno.writeTextFile(
        `${broken}/.claude-plugin/plugin.json`,
        JSON.stringify({ ...manifest, channels: [{ displayName: "no server named" }] }),
      );
      assert.equal((await validate(broken)).ok, false);
    } finally {
      await Deno.remove(broken, { recursive: true });
    }
  },
});

Deno.test("every manifest names this version, the npx line and the channel the server declares", async () => {
  const version = denoJson.version;
  for (const host of ["claude", "codex", "cursor"]) {
    const manifest = await readJson(`${PLUGIN}/.${host}-plugin/plugin.json`);
    assert.equal(manifest.name, "mero-mcp", host);
    assert.equal(manifest.version, version, `${host} plugin version`);
    const market = await readJson(`${ROOT}.${host}-plugin/marketplace.json`);
    const [entry] = market.plugins as Json[];
    assert.equal(entry.name, "mero-mcp");
    if (entry.version !== undefined) assert.equal(entry.version, version, `${host} marketplace`);
  }
  const claude = await readJson(`${PLUGIN}/.claude-plugin/plugin.json`);
  // The server's key is short, as the install page advises: Claude Code prefixes a plugin's tools with
  // mcp__plugin_<plugin>_<server>__, and "mero" keeps 4 more characters of each generated name within 64.
  assert.deepEqual((claude.channels as Json[]).map((c) => c.server), ["mero"]);
  for (const file of [".mcp.json", "mcp.json"]) {
    const servers = (await readJson(`${PLUGIN}/${file}`)).mcpServers as Record<string, Json>;
    assert.deepEqual(Object.keys(servers), ["mero"]);
    assert.equal(servers.mero.command, "npx");
    // Pinned to the release the plugin ships with: a later publish (or a hijacked one) is not run unasked.
    assert.deepEqual(servers.mero.args, ["-y", `@calimero-network/mero-mcp@${version}`]);
  }
  // The monitor runs `watch` of this release for the contexts the person chose; an empty choice watches nothing.
  const [monitor] = (claude.experimental as Json).monitors as Json[];
  assert.equal(
    monitor.command,
    `npx -y @calimero-network/mero-mcp@${version} watch --node-url "\${user_config.node_url}" "\${user_config.channel}"`,
  );
  // The person's answers reach the server as the variables it reads; an empty answer means unset.
  const env = ((await readJson(`${PLUGIN}/.mcp.json`)).mcpServers as Record<string, Json>).mero
    .env as Record<string, string>;
  assert.deepEqual(env, {
    CALIMERO_NODE_URL: "${user_config.node_url}",
    CALIMERO_MCP_CHANNEL: "${user_config.channel}",
  });
  // The install page's commands are Claude Code's own: add the marketplace (named in marketplace.json), then install
  // the plugin from it by name@marketplace.
  const install = await Deno.readTextFile(`${ROOT}docs/install.md`);
  const marketplace = (await readJson(`${ROOT}.claude-plugin/marketplace.json`)).name;
  assert.match(install, /^\/plugin marketplace add calimero-network\/mero-mcp$/m);
  assert.match(install, new RegExp(`^/plugin install mero-mcp@${marketplace}$`, "m"));
  assert.doesNotMatch(install, /--marketplace/);
});

Deno.test("the skill names only tools the server serves, and each example call validates against its schema", async () => {
  const text = await Deno.readTextFile(SKILL);
  const front = /^---\nname: ([a-z0-9-]+)\ndescription: (.+)\n---\n/.exec(text);
  assert.ok(front, "frontmatter with name and description");
  assert.equal(front[1], "calimero", "the name is the skill's folder");
  assert.ok(front[2].length <= 1024, "a description of at most 1,024 characters");

  const sim = await startSimNode({ apps: ["kv-store"] });
  const conn = await connect({
    era: "2025-11-25",
    env: await isolatedEnv({ CALIMERO_NODE_URL: sim.url }),
  });
  try {
    const { tools } = await conn.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const fields = new Set<string>();
    const collect = (schema: unknown) => {
      if (schema === null || typeof schema !== "object") return;
      const props = (schema as Json).properties as Json | undefined;
      for (const [key, value] of Object.entries(props ?? {})) {
        fields.add(key);
        collect(value);
      }
      for (const value of Object.values(schema as Json)) {
        if (typeof value === "object") collect(value);
      }
    };
    for (const t of tools) [t.inputSchema, t.outputSchema].forEach(collect);

    // Every `word` in backticks that could be a tool or field name is one.
    const named = [...text.matchAll(/`([a-z][a-z0-9_]*)`/g)].map((m) => m[1]);
    assert.ok(named.length >= 10);
    const unknown = named.filter((n) => !byName.has(n) && !fields.has(n));
    assert.deepEqual(unknown, [], "names the skill uses that the server does not serve");

    // Every example call: an existing tool, arguments its input schema accepts.
    const ajv = new Ajv2020({ strict: false });
    const calls = [...text.matchAll(/```calls\n([\s\S]*?)```/g)].flatMap((m) =>
      m[1].split("\n").map((l) => l.trim()).filter(Boolean)
    );
    assert.ok(calls.length >= 5, `${calls.length} example calls`);
    for (const line of calls) {
      const space = line.indexOf(" ");
      const name = line.slice(0, space);
      const tool = byName.get(name);
      assert.ok(tool, `the skill calls "${name}", which the server does not serve`);
      const args = JSON.parse(line.slice(space + 1));
      const check = ajv.compile(tool.inputSchema);
      assert.ok(check(args), `${line}: ${ajv.errorsText(check.errors)}`);
    }
  } finally {
    await conn.close();
    await sim.close();
  }
});
