// Claims the README, the pages in docs/ and the release files make that can drift from the code: each is read from
// the code here.

import assert from "assert";
import { join } from "path";
import { parseConfig } from "../src/config/config.ts";
import denoJson from "../deno.json" with { type: "json" };

const ROOT = new URL("..", import.meta.url).pathname;
const read = (path: string) => Deno.readTextFile(join(ROOT, path));

/** The README and every page in docs/, as [path, text]. */
async function pages(): Promise<[string, string][]> {
  const names = [...Deno.readDirSync(join(ROOT, "docs"))].filter((e) => e.name.endsWith(".md"))
    .map((e) => `docs/${e.name}`).sort();
  return await Promise.all(
    ["README.md", ...names].map(async (path) => [path, await read(path)] as [string, string]),
  );
}

Deno.test("one story about ports: core's default server port leads discovery, the docs, the .mcpb prompt and the simulated node", async () => {
  // core: crates/server/src/config.rs DEFAULT_PORT 2528 (the API), crates/network/primitives/src/config.rs 2428 (P2P).
  const SERVER = 2528;
  const SWARM = 2428;
  const config = parseConfig([], {});
  assert.equal(config.probePorts[0], SERVER);
  assert.match(
    await read("docs/install.md"),
    new RegExp(`merod's default is ${SERVER} \\(\`--server-port\`; ${SWARM} is\\s+its P2P port`),
  );
  for (const [path, text] of await pages()) {
    for (const url of text.matchAll(/CALIMERO_NODE_URL[=": ]+"?http:\/\/127\.0\.0\.1:(\d+)/g)) {
      assert.equal(Number(url[1]), SERVER, `${path} example ${url[0]}`);
    }
  }
  assert.match(
    await read("release/mcpb-manifest.json"),
    new RegExp(`http://127\\.0\\.0\\.1:${SERVER}\\b`),
  );
  assert.match(await read("tests/sim_node/main.ts"), new RegExp(`port: ${SERVER}`));
});

Deno.test("every fixed tool that answers JSON declares an outputSchema (docs/tools.md's claim)", async () => {
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

Deno.test("the troubleshooting page's doctor sample shows what doctor says of the simulated node: its apps, tool counts and limits", async () => {
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
    // The sample was taken with the default state directory of a user "ada".
    const rendered = renderDoctor(await runDoctor(config), { color: false })
      .replaceAll(stateDir, "/home/ada/.config/calimero/mcp");
    const sample = (await read("docs/troubleshooting.md")).split("## `mero-mcp doctor`")[1];
    const section = (text: string, title: string) =>
      text.slice(text.indexOf(`\n${title}\n`) + 1).split("\n\n")[0].split("\n")
        // The two broken apps' long lines are shortened on the page.
        .filter((line) => !line.includes("fails to load"));
    for (const title of ["Apps", "Tools"]) {
      assert.ok(section(rendered, title).length > 3, `doctor printed no ${title} section`);
      assert.deepEqual(
        section(sample, title),
        section(rendered, title),
        `the page's ${title} section`,
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
  const files = [...(await pages()).map(([path]) => path), "npm/mero-mcp/README.md"];
  for (const file of files) {
    const runs = (await read(file)).split("\n").filter((line) =>
      line.includes("@calimero-network/mero-mcp") && /npx|"-y"/.test(line)
    );
    if (file === "README.md" || file.includes("install") || file.startsWith("npm/")) {
      assert.ok(runs.length > 0, `${file} shows how to run it`);
    }
    for (const line of runs) assert.match(line, pinned, `${file}: ${line}`);
  }
});

Deno.test("the documentation's generated tables are the code's: every fixed tool, every flag and variable", async () => {
  const { comparable, generatedDocs, markedBlock } = await import("./docs_generated.ts");
  for (const { file, name, block } of generatedDocs()) {
    const written = markedBlock(await read(file), name);
    assert.ok(written !== null, `${file} has no <!-- ${name}:start --> block`);
    assert.equal(
      comparable(written),
      comparable(block),
      `${file}'s ${name} block is stale: run deno task snapshots`,
    );
  }
  // The table cannot miss a tool: it is made from the same list the server serves.
  const { allFixedTools } = await import("./docs_generated.ts");
  const table = markedBlock(await read("docs/tools.md"), "tools") ?? "";
  for (const tool of allFixedTools()) assert.match(table, new RegExp(`\`${tool.name}\``));
});

Deno.test("every count of tools a reader sees is the server's own", async () => {
  const { allFixedTools } = await import("./docs_generated.ts");
  const tools = allFixedTools();
  const app = tools.filter((t) => t.group === "app").length;
  const expected = { fixed: tools.length - app, app };
  let seen = 0;
  for (const [file, page] of await pages()) {
    const text = page.replaceAll("\n", " ");
    for (const m of text.matchAll(/\b(\d+) (fixed|app) tools\b/g)) {
      seen++;
      assert.equal(Number(m[1]), expected[m[2] as "fixed" | "app"], `${file}: "${m[0]}"`);
    }
  }
  assert.ok(seen >= 2, "the README and the tools page give the counts");
});

Deno.test("the npm packages a first run fetches are counted as deno.lock holds them", async () => {
  const lock = JSON.parse(await read("deno.lock"));
  const counted = /(\d+) npm packages \(those in `deno.lock`\)/.exec(
    (await read("docs/development.md")).replaceAll("\n", " "),
  );
  assert.ok(counted, "docs/development.md counts the server's npm packages");
  assert.equal(Number(counted[1]), Object.keys(lock.npm).length);
});

/** A heading's anchor as GitHub makes it. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

Deno.test("every link between the README and the docs reaches a file, and every #anchor a heading there", async () => {
  const all = new Map(await pages());
  let checked = 0;
  for (const [path, text] of all) {
    const prose = text.replace(/```[\s\S]*?```/g, "");
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [file, hash] = target.split("#");
      const resolved = file === "" ? path : join(path, "..", file).replace(/^\.\//, "");
      let body: string;
      try {
        body = all.get(resolved) ?? await read(resolved);
      } catch {
        throw new Error(`${path} links to ${target}: no file ${resolved}`);
      }
      if (hash !== undefined) {
        const anchors = [...body.matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1]));
        assert.ok(anchors.includes(hash), `${path} links to ${target}: no heading #${hash}`);
      }
      checked++;
    }
  }
  assert.ok(checked > 30, `checked ${checked} links`);
});

Deno.test("the front page is short and the docs speak no internal shorthand", async () => {
  const readme = await read("README.md");
  assert.ok(readme.split("\n").length <= 300, "the README stays a five-minute read");
  for (const [path, text] of await pages()) {
    // Benchmark names (B1–B11) belong to the benchmarks page; issue numbers and review labels to nobody.
    const shorthand = path === "docs/benchmarks.md"
      ? /\b(issue \d+|R\d+ #\d+)\b/
      : /\b(issue \d+|R\d+ #\d+|B(?:[1-9]|1[01]))\b/;
    const found = shorthand.exec(text);
    assert.equal(found, null, `${path} says "${found?.[0]}"`);
  }
});
