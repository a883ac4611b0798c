import assert from "assert";
import { ConfigError, parseConfig } from "./config.ts";

const HOME = { HOME: "/home/ada" };

Deno.test("defaults: stdio, every toolset, state dir under ~/.config/calimero/mcp, probe ports in order", () => {
  const config = parseConfig([], HOME);
  assert.equal(config.mode, "stdio");
  assert.deepEqual(config.toolsets, ["core", "blobs", "governance", "apps"]);
  assert.equal(config.stateDir, "/home/ada/.config/calimero/mcp");
  assert.equal(config.nodeHome, "/home/ada/.calimero");
  assert.deepEqual(config.probePorts, [2528, 2428, 2529, 2429]);
  assert.equal(config.nodeTimeoutMs, 10000);
  assert.equal(config.pollSeconds, 30);
  assert.equal(config.apps, null);
  assert.equal(config.maxTools, null);
});

Deno.test("flags override the environment, values are trimmed, empty means unset", () => {
  const config = parseConfig(["--node-url", " http://h:1/prefix/ ", "--log=debug"], {
    ...HOME,
    CALIMERO_NODE_URL: "http://other:2",
    CALIMERO_MCP_LOG: "error",
    CALIMERO_NODE_NAME: "  ",
  });
  assert.equal(config.nodeUrl, "http://h:1/prefix");
  assert.equal(config.logLevel, "debug");
  assert.equal(config.nodeName, null);
});

Deno.test("toolsets: core is always on, all means every one, unknown names are refused", () => {
  assert.deepEqual(parseConfig(["--toolsets", "blobs"], HOME).toolsets, ["core", "blobs"]);
  assert.deepEqual(parseConfig(["--toolsets", "all"], HOME).toolsets.length, 4);
  assert.throws(() => parseConfig(["--toolsets", "blob"], HOME), /Unknown toolset "blob"/);
});

Deno.test("--http sets HTTP mode and accepts loopback only", () => {
  const config = parseConfig(["--http", "127.0.0.1:7331"], HOME);
  assert.equal(config.mode, "http");
  assert.deepEqual(config.http, { hostname: "127.0.0.1", port: 7331 });
  assert.deepEqual(parseConfig(["--http", "[::1]:1"], HOME).http, { hostname: "::1", port: 1 });
  assert.throws(() => parseConfig(["--http", "192.168.1.2:80"], HOME), /loopback/);
});

const REFUSED: [string, string[], Record<string, string>, RegExp][] = [
  ["an unknown flag", ["--nope"], {}, /Unknown flag "--nope"/],
  ["a flag without its value", ["--node-url"], {}, /needs a value/],
  ["a value for a switch", ["--json=yes"], {}, /takes no value/],
  ["a stray argument", ["serve"], {}, /Unexpected argument "serve"/],
  ["a non-URL node", ["--node-url", "localhost:2528"], {}, /not supported|not a URL/],
  ["a ftp registry", ["--registry-url", "ftp://r"], {}, /http/],
  ["a timeout of zero", [], { CALIMERO_NODE_TIMEOUT_MS: "0" }, /from 100/],
  ["a port list with a word", [], { CALIMERO_MCP_PROBE_PORTS: "2528,abc" }, /"abc"/],
  ["a max-tools of zero", ["--max-tools", "0"], {}, /from 1/],
  ["a username alone", [], { CALIMERO_USERNAME: "ada" }, /password/],
  ["a password alone", [], { CALIMERO_PASSWORD: "pw" }, /CALIMERO_USERNAME/],
  ["a refresh token alone", [], { CALIMERO_REFRESH_TOKEN: "r" }, /CALIMERO_AUTH_TOKEN/],
];

for (const [name, argv, env, message] of REFUSED) {
  Deno.test(`${name} is a configuration error naming the value`, () => {
    assert.throws(() => parseConfig(argv, { ...HOME, ...env }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.exitCode, 2);
      assert.match(error.message, message);
      return true;
    });
  });
}

Deno.test("check takes positional paths and its own flags", () => {
  const config = parseConfig(["check", "abi.json", "--guide", "GUIDE.md", "--json"], HOME);
  assert.equal(config.mode, "check");
  assert.deepEqual(config.args, ["abi.json"]);
  assert.equal(config.guideFile, "GUIDE.md");
  assert.equal(config.json, true);
});

Deno.test("USERPROFILE is the home directory when HOME is unset (Windows)", () => {
  const config = parseConfig([], { USERPROFILE: "C:\\Users\\ada" });
  assert.equal(config.nodeHome, "C:\\Users\\ada\\.calimero");
});

Deno.test("a leading -- (deno task dev -- …) is dropped; one anywhere else is still refused", () => {
  assert.equal(parseConfig(["--", "--http", "127.0.0.1:7331"], HOME).mode, "http");
  assert.equal(parseConfig(["--", "doctor"], HOME).mode, "doctor");
  assert.deepEqual(parseConfig(["--", "check", "a.json"], HOME).mode, "check");
  assert.throws(() => parseConfig(["--log", "debug", "--"], HOME), /Unknown flag "--"/);
});

Deno.test("CALIMERO_MCP_ALLOW_LOCAL_URLS is off by default and takes 1/0, true/false, yes/no", () => {
  assert.equal(parseConfig([], HOME).allowLocalInstallUrls, false);
  for (const on of ["1", "true", "YES"]) {
    assert.equal(
      parseConfig([], { ...HOME, CALIMERO_MCP_ALLOW_LOCAL_URLS: on }).allowLocalInstallUrls,
      true,
    );
  }
  assert.equal(
    parseConfig([], { ...HOME, CALIMERO_MCP_ALLOW_LOCAL_URLS: "0" }).allowLocalInstallUrls,
    false,
  );
  assert.throws(
    () => parseConfig([], { ...HOME, CALIMERO_MCP_ALLOW_LOCAL_URLS: "maybe" }),
    /CALIMERO_MCP_ALLOW_LOCAL_URLS: "maybe" is not accepted/,
  );
});

Deno.test("a URL that does not parse is named without its userinfo or query string", () => {
  for (const name of ["CALIMERO_NODE_URL", "CALIMERO_REGISTRY_URL"]) {
    assert.throws(
      () =>
        parseConfig([], { ...HOME, [name]: "http://user:NODEPASS@127.0.0.1:99999/?token=NODEQS" }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.doesNotMatch(error.message, /NODEPASS|NODEQS/);
        assert.match(error.message, /http:\/\/127\.0\.0\.1:99999\//);
        return true;
      },
    );
  }
});

Deno.test("the sub-command may follow flags, and -h and help ask for the help", () => {
  const doctor = parseConfig(["--node-url", "http://127.0.0.1:2528", "doctor"], HOME);
  assert.equal(doctor.mode, "doctor");
  assert.equal(doctor.nodeUrl, "http://127.0.0.1:2528");
  assert.equal(parseConfig(["--json", "check", "abi.json"], HOME).mode, "check");
  assert.deepEqual(parseConfig(["--json", "check", "abi.json"], HOME).args, ["abi.json"]);
  assert.equal(parseConfig(["-h"], HOME).mode, "help");
  assert.equal(parseConfig(["help"], HOME).mode, "help");
  assert.equal(parseConfig(["doctor", "-h"], HOME).mode, "help");
});

Deno.test("--channel takes ids, aliases and `selected`; refuses what no context could be named, and HTTP mode", () => {
  const id = "8vwekDU4WnRHYNyhBguPzNDKUXTSHCSNAJrZQWnZWyPz";
  assert.deepEqual(parseConfig(["--channel", `team-notes, ${id},selected`], {}).channel, {
    contexts: ["team-notes", id],
    selected: true,
  });
  assert.deepEqual(parseConfig([], { CALIMERO_MCP_CHANNEL: "selected" }).channel, {
    contexts: [],
    selected: true,
  });
  assert.equal(parseConfig([], {}).channel, null);
  assert.throws(() => parseConfig(["--channel", "a b"], {}), /not a context id or alias/);
  assert.throws(() => parseConfig(["--channel", "<x>"], {}), /not a context id or alias/);
  assert.throws(() => parseConfig(["--channel", " , "], {}), /names no context/);
  const many = Array.from({ length: 17 }, (_, i) => `c${i}`).join(",");
  assert.throws(() => parseConfig(["--channel", many], {}), /at most 16/);
  assert.throws(
    () => parseConfig(["--channel", "selected", "--http", "127.0.0.1:7331"], {}),
    /stdio only/,
  );
});

Deno.test("watch takes its contexts as arguments (or the channel's), `selected` too; none at all is a usage error", () => {
  const named = parseConfig(["watch", "team-notes,other", "third"], HOME);
  assert.equal(named.mode, "watch");
  assert.deepEqual(named.channel, { contexts: ["team-notes", "other", "third"], selected: false });
  assert.deepEqual(parseConfig(["watch", "selected"], HOME).channel, {
    contexts: [],
    selected: true,
  });
  assert.deepEqual(parseConfig(["watch"], { ...HOME, CALIMERO_MCP_CHANNEL: "demo" }).channel, {
    contexts: ["demo"],
    selected: false,
  });
  // A plugin's empty setting: nothing to watch (main exits 0 at once).
  assert.equal(parseConfig(["watch", ""], HOME).channel, null);
  assert.throws(
    () => parseConfig(["watch"], HOME),
    (e: Error) => e instanceof ConfigError && /watch needs the contexts to follow/.test(e.message),
  );
  assert.throws(
    () => parseConfig(["watch", "no spaces allowed"], HOME),
    /watch: "no spaces allowed"/,
  );
});

Deno.test("CALIMERO_NODES names more nodes; a remote plain-http one is refused unless allowed; node:context in a channel", () => {
  const config = parseConfig([], {
    ...HOME,
    CALIMERO_NODES: "two=http://127.0.0.1:2529, far=https://node.example.com/api/",
  });
  assert.deepEqual(config.nodes, [
    { name: "two", url: "http://127.0.0.1:2529" },
    { name: "far", url: "https://node.example.com/api" },
  ]);
  assert.throws(
    () => parseConfig([], { ...HOME, CALIMERO_NODES: "far=http://10.0.0.5:2528" }),
    /over plain http/,
  );
  assert.equal(
    parseConfig([], {
      ...HOME,
      CALIMERO_NODES: "far=http://10.0.0.5:2528",
      CALIMERO_MCP_ALLOW_REMOTE_HTTP: "1",
    }).nodes[0].url,
    "http://10.0.0.5:2528",
  );
  assert.throws(
    () => parseConfig([], { ...HOME, CALIMERO_NODES: "default=http://127.0.0.1:1" }),
    /not "default"/,
  );
  assert.throws(
    () => parseConfig([], { ...HOME, CALIMERO_NODES: "http://127.0.0.1:1" }),
    /not name=url/,
  );
  assert.throws(
    () => parseConfig([], { ...HOME, CALIMERO_NODES: "a=http://127.0.0.1:1,a=http://127.0.0.1:2" }),
    /given twice/,
  );
  assert.deepEqual(parseConfig(["watch", "two:team-notes,mine"], HOME).channel?.contexts, [
    "two:team-notes",
    "mine",
  ]);
  assert.throws(() => parseConfig(["watch", "bad name:x"], HOME), /names no node before its ":"/);
});
