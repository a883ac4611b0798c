// Claims the README and the release files make that can drift from the code: each is read from the code here.

import assert from "assert";
import { join } from "path";
import { parseConfig } from "../src/config/config.ts";
import denoJson from "../deno.json" with { type: "json" };

const ROOT = new URL("..", import.meta.url).pathname;
const read = (path: string) => Deno.readTextFile(join(ROOT, path));

Deno.test("one story about ports: core's default server port leads discovery, the README, the .mcpb prompt and the simulated node", async () => {
  // core: crates/server/src/config.rs DEFAULT_PORT 2528 (the API), crates/network/primitives/src/config.rs 2428 (P2P).
  const SERVER = 2528;
  const SWARM = 2428;
  const config = parseConfig([], {});
  assert.equal(config.probePorts[0], SERVER);
  const readme = await read("README.md");
  assert.match(
    readme,
    new RegExp(`merod's default is ${SERVER} \\(\`--server-port\`; ${SWARM} is\\s+its P2P port`),
  );
  for (const url of readme.matchAll(/CALIMERO_NODE_URL[=": ]+"?http:\/\/127\.0\.0\.1:(\d+)/g)) {
    assert.equal(Number(url[1]), SERVER, `README example ${url[0]}`);
  }
  assert.match(
    await read("release/mcpb-manifest.json"),
    new RegExp(`http://127\\.0\\.0\\.1:${SERVER}\\b`),
  );
  assert.match(await read("tests/sim_node/main.ts"), new RegExp(`port: ${SERVER}`));
});

Deno.test("every fixed tool that answers JSON declares an outputSchema (the README's claim)", async () => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(join(ROOT, dir))) {
      // The app tools (app/) answer with the app's data, not the node's: the claim is the fixed tools'.
      if (e.isDirectory && e.name !== "app") walk(join(dir, e.name));
      else if (e.isFile && e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) {
        files.push(join(dir, e.name));
      }
    }
  };
  walk("src/tools");
  const missing: string[] = [];
  let jsonTools = 0;
  for (const file of files) {
    const source = await read(file);
    const blocks = source.split("defineTool({").slice(1);
    for (const block of blocks) {
      const name = block.match(/name: "([a-z_]+)"/)?.[1];
      if (!name || !block.includes("jsonResult(")) continue;
      jsonTools++;
      if (!/\n\s+output: /.test(block)) missing.push(name);
    }
  }
  assert.ok(
    jsonTools > 20,
    `found ${jsonTools} JSON tools: the scan no longer reads the tool files`,
  );
  assert.deepEqual(missing, []);
});

Deno.test("the README's doctor sample shows what doctor says of the simulated node: its apps, tool counts and limits", async () => {
  const { startSimNode } = await import("./sim_node/mod.ts");
  const { runDoctor } = await import("../src/cli/doctor/doctor.ts");
  const { renderDoctor } = await import("../src/cli/doctor/render.ts");
  const sim = await startSimNode();
  const home = await Deno.makeTempDir({ prefix: "mero-docs-doctor-" });
  try {
    const stateDir = join(home, "state");
    await Deno.mkdir(stateDir, { mode: 0o700 });
    const config = parseConfig(["doctor"], {
      HOME: home,
      CALIMERO_NODE_URL: sim.url,
      CALIMERO_MCP_STATE_DIR: stateDir,
      CALIMERO_NODE_HOME: join(home, "calimero"),
    });
    // The README's sample was taken with the default state directory of a user "ada".
    const rendered = renderDoctor(await runDoctor(config), { color: false })
      .replaceAll(stateDir, "/home/ada/.config/calimero/mcp");
    const sample = (await read("README.md")).split("## `mero-mcp doctor`")[1];
    const section = (text: string, title: string) =>
      text.slice(text.indexOf(`\n${title}\n`) + 1).split("\n\n")[0].split("\n")
        // The two broken apps' long lines are shortened in the README.
        .filter((line) => !line.includes("fails to load"));
    for (const title of ["Apps", "Tools"]) {
      assert.ok(section(rendered, title).length > 3, `doctor printed no ${title} section`);
      assert.deepEqual(
        section(sample, title),
        section(rendered, title),
        `the README's ${title} section`,
      );
    }
  } finally {
    await sim.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("every npx line a person copies runs the version this tree releases, pinned", async () => {
  const pinned = new RegExp(
    `@calimero-network/mero-mcp@${denoJson.version.replaceAll(".", "\\.")}(?![\\w.-])`,
  );
  for (const file of ["README.md", "npm/mero-mcp/README.md"]) {
    const runs = (await read(file)).split("\n").filter((line) =>
      line.includes("@calimero-network/mero-mcp") && /npx|"-y"/.test(line)
    );
    assert.ok(runs.length > 0, `${file} shows how to run it`);
    for (const line of runs) assert.match(line, pinned, `${file}: ${line}`);
  }
});
