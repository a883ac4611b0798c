import assert from "assert";
import { scanNodeHome } from "./node_home.ts";
import { captureStderr } from "../testing/unit.ts";

// ---- helpers ---------------------------------------------------------------------------------------------

function nodeToml(listen: string[]): string {
  return [
    'mode = "standard"',
    "[identity]",
    'keypair = "SECRET-PRIVATE-KEY"',
    "[swarm]",
    'listen = ["/ip4/0.0.0.0/tcp/2528", "/ip6/::/tcp/2528"]',
    "[server]",
    `listen = [${listen.map((a) => JSON.stringify(a)).join(", ")}]`,
    'auth_mode = "proxy"',
    "[server.admin]",
    "enabled = true",
  ].join("\n");
}

/** A node home with one directory per entry: a port (loopback v4 listen) or raw file content. */
async function makeNodeHome(nodes: Record<string, number | string | null>): Promise<string> {
  const home = await Deno.makeTempDir({ prefix: "mero-home-" });
  for (const [name, spec] of Object.entries(nodes)) {
    await Deno.mkdir(`${home}/${name}`);
    if (spec === null) continue;
    const text = typeof spec === "number" ? nodeToml([`/ip4/127.0.0.1/tcp/${spec}`]) : spec;
    await Deno.writeTextFile(`${home}/${name}/config.toml`, text);
  }
  return home;
}

Deno.test("the node home scan keeps loopback listeners as localhost URLs, sorted by name", async () => {
  const home = await makeNodeHome({
    node2: nodeToml(["/ip6/::1/tcp/2429", "/ip4/127.0.0.1/tcp/2429"]),
    node1: 2428,
    v6only: nodeToml(["/ip6/::1/tcp/3001"]),
    wildcard: nodeToml(["/ip4/0.0.0.0/tcp/3002"]),
    empty: null,
  });
  await Deno.writeTextFile(`${home}/stray-file.toml`, "x = 1");
  assert.deepEqual(await scanNodeHome(home), [
    { name: "node1", url: "http://localhost:2428" },
    { name: "node2", url: "http://localhost:2429" },
    { name: "v6only", url: "http://localhost:3001" },
    { name: "wildcard", url: "http://localhost:3002" },
  ]);
});

Deno.test("a missing node home scans as no nodes", async () => {
  assert.deepEqual(await scanNodeHome("/nonexistent/mero-mcp/home"), []);
});

Deno.test("a broken config.toml is skipped with a warning that never quotes the file", async () => {
  const home = await makeNodeHome({
    good: 2428,
    broken: 'keypair = "SECRET-PRIVATE-KEY"\n[server\nlisten = 1',
    remote: nodeToml(["/ip4/10.0.0.5/tcp/2428"]),
  });
  let nodes: unknown;
  const stderr = await captureStderr(async () => nodes = await scanNodeHome(home));
  assert.deepEqual(nodes, [{ name: "good", url: "http://localhost:2428" }]);
  assert.match(stderr, /Skipping node "broken": .* is not valid TOML \(line \d+, column \d+\)/);
  assert.match(stderr, /Skipping node "remote": .* no loopback address/);
  assert.doesNotMatch(stderr, /SECRET-PRIVATE-KEY/);
});
