// Claims the README and the release files make that can drift from the code: each is read from the code here.

import assert from "assert";
import { join } from "path";
import { parseConfig } from "../src/node/config.ts";

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
  const files = [...Deno.readDirSync(join(ROOT, "src/tools"))]
    .filter((e) => e.isFile && e.name.endsWith(".ts") && !e.name.endsWith("_test.ts"))
    .map((e) => join("src/tools", e.name));
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
