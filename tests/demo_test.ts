// `deno task demo` as a newcomer runs it: a subprocess whose printed session must show the facts that matter
// (a value read back, a refusal pointing at select_app, the app's own error, a usable client snippet).

import { SERVER_RUN_ARGS } from "../tools/run_args.ts";
import assert from "assert";
import { join } from "node:path";
import { ROOT } from "./harness.ts";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `deno task demo` with the caller's environment minus any node URL, plus `extra`. */
async function runDemo(extra: Record<string, string> = {}): Promise<Run> {
  const env = Deno.env.toObject();
  delete env.CALIMERO_NODE_URL;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "demo"],
    cwd: ROOT,
    env: { ...env, ...extra },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

let plain: Promise<Run> | undefined;
/** One plain run shared by the tests that only read its output. */
const plainRun = () => plain ??= runDemo();

/** The `mcpServers` JSON block the demo prints, parsed. */
function mcpServersSnippet(stdout: string): {
  mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }>;
} {
  const start = stdout.indexOf('{\n  "mcpServers"');
  assert.ok(start >= 0, `no mcpServers snippet in:\n${stdout}`);
  const end = stdout.indexOf("\n}\n", start);
  return JSON.parse(stdout.slice(start, end + 2));
}

Deno.test("the demo walks a newcomer through a session and exits 0", async () => {
  const run = await plainRun();
  assert.equal(run.code, 0, `demo failed:\n${run.stdout}\n${run.stderr}`);
  const out = run.stdout;
  assert.match(
    out,
    /← mero-mcp \d+\.\d+\.\d+, protocol \d{4}-\d{2}-\d{2}/,
    "server name and version",
  );
  assert.match(out, /← \d+ tools\n\s+fixed .*node_status/, "tool count with the fixed tools");
  assert.match(out, /generated \(per method\): +\d+ /, "generated tools are counted");
  assert.match(out, /com\.calimero\.kv-store 1\.0\.0/, "list_applications names kv-store");
  assert.match(out, /app_handle eyJ\S{9}…\S{8} \(\d+ characters/, "the handle is shown shortened");
  assert.match(out, /Read it back\n.*\n\s+← "hello from mero-mcp"/, "the value is read back");
  assert.match(
    out,
    /isError: true\n\s+Error: [^\n]*needs an app_handle[^\n]*select_app/,
    "refusal",
  );
  assert.match(out, /isError: true\n\s+Error: \{"kind":"NotFound","data":"no-such-key"\}/);
  assert.match(out, /watching events: yes/, "select_app watches the context");
  assert.match(
    out,
    /Events since select_app\n.*\n\s+← Inserted \{"key":"greeting","value":"hello from mero-mcp"\}/,
    "the write of step 5, decoded",
  );
  assert.match(
    out,
    /second agent writes\n.*\n\s+← Updated \{"key":"greeting","value":"hello back"\}/,
    "the second agent's write wakes the wait",
  );
  assert.ok(!out.includes("\x1b["), "no colour codes when stdout is not a terminal");
});

Deno.test("the demo's client snippets start this checkout's server with the short key mero", async () => {
  const run = await plainRun();
  assert.equal(run.code, 0, run.stderr);
  const main = join(ROOT, "main.ts");
  assert.ok(run.stdout.includes(`claude mcp add mero -- `), "Claude Code command");
  const { mcpServers } = mcpServersSnippet(run.stdout);
  assert.deepEqual(Object.keys(mcpServers), ["mero"]);
  const server = mcpServers.mero;
  if (!Deno.env.get("MERO_MCP_BIN")) {
    assert.deepEqual(server.args, [...SERVER_RUN_ARGS, main]);
    assert.equal(server.command, Deno.execPath());
  }
  assert.equal(server.env, undefined, "no node URL configured, so none is written");
});

Deno.test("a configured node URL goes into both snippets", async () => {
  const url = "http://node.example:2528";
  const run = await runDemo({ CALIMERO_NODE_URL: url });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.stdout.includes(`claude mcp add --env CALIMERO_NODE_URL=${url} mero -- `));
  assert.deepEqual(mcpServersSnippet(run.stdout).mcpServers.mero.env, { CALIMERO_NODE_URL: url });
});

Deno.test("a server that cannot start makes the demo exit 1 naming the step", async () => {
  const run = await runDemo({ MERO_MCP_BIN: join(ROOT, "no-such-mero-mcp-binary") });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /The demo failed at starting the server: /);
});
