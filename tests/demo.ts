// `deno task demo`, the newcomer's first command: a fresh simulated node, the real server spawned against it, and a
// short MCP session with the official client, printed request by request. It needs no node, network or config.
// This is a terminal program, so it writes to stdout (the server's stdout is the protocol, never this one's).

import { APP_TOOL_NAMES } from "../src/apps/names.ts";
import { SERVER_RUN_ARGS } from "../tools/run_args.ts";
import type { Client } from "@modelcontextprotocol/client";
import { join } from "node:path";
import {
  connect,
  type Connection,
  firstText,
  isolatedEnv,
  ROOT,
  serverCommand,
} from "./harness.ts";
import { type SimNode, startSimNode } from "./sim_node/mod.ts";

/** The sample apps the demo node carries: the well-behaved ones (the broken and conformance fixtures are for tests). */
const DEMO_APPS = ["kv-store", "mero-issue-tracker", "mero-drive-docs", "bignum"] as const;
/** The generic app tools (the server's own list); every other tool without app metadata is a fixed node tool. */
const APP_TOOLS = new Set(APP_TOOL_NAMES);
/** The longest a single step may take before the demo gives up on it. */
const STEP_TIMEOUT_MS = 20_000;

type Result = Awaited<ReturnType<Client["callTool"]>>;
type Block = { type: string; text?: string; resource?: { uri?: string } };

const encoder = new TextEncoder();
const colour = Deno.stdout.isTerminal() && !Deno.noColor;
const paint = (code: string) => (s: string) => colour ? `\x1b[${code}m${s}\x1b[0m` : s;
const [bold, dim, green, red, cyan] = ["1", "2", "32", "31", "36"].map(paint);

/** Writes all of `text` (a pipe may take it in pieces). */
function writeAll(out: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length) bytes = bytes.subarray(out.writeSync(bytes));
}

function say(line = ""): void {
  writeAll(Deno.stdout, line + "\n");
}

/** A long opaque value shown by its ends, so the line stays readable. */
function shorten(value: string, head = 12, tail = 8): string {
  return value.length <= head + tail + 1 ? value : `${value.slice(0, head)}…${value.slice(-tail)}`;
}

/** A failed step: its title and cause in the message, and what to do about it. */
class StepError extends Error {
  constructor(message: string, readonly remedy: string) {
    super(message);
  }
}

/** What a failure during the MCP session means: the server and the demo disagree. */
const SESSION_REMEDY =
  "The server answered, but not as the demo expects: that is a bug in mero-mcp. " +
  "`deno task test` runs the suites that pin this behaviour down.";

/** Runs one step under a time limit; a failure names the step and what to do about it. */
async function step<T>(
  title: string,
  run: () => T | Promise<T>,
  remedy = SESSION_REMEDY,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${STEP_TIMEOUT_MS / 1000} s`)),
      STEP_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([Promise.resolve().then(run), timeout]);
  } catch (error) {
    throw new StepError(
      `${title}: ${error instanceof Error ? error.message : String(error)}`,
      remedy,
    );
  } finally {
    clearTimeout(timer);
  }
}

function request(n: number, title: string, method: string, detail = ""): void {
  say();
  say(`${bold(`${n}. ${title}`)}`);
  say(`   ${cyan("→")} ${method}${detail ? " " + detail : ""}`);
}

function answer(text: string, error = false): void {
  const lines = text.split("\n");
  say(`   ${error ? red("←") : green("←")} ${lines[0]}`);
  for (const line of lines.slice(1)) say(`     ${line}`);
}

/** The readable text of a tool result: its text blocks, and a pointer for each embedded guide. */
function resultText(result: Result): string {
  const blocks = (result.content ?? []) as Block[];
  return blocks.map((b) =>
    b.type === "text" ? b.text ?? "" : `[${b.type}${b.resource?.uri ? " " + b.resource.uri : ""}]`
  ).join("\n");
}

async function callTool(
  conn: Connection,
  name: string,
  args: Record<string, unknown>,
): Promise<Result> {
  return await conn.client.callTool({ name, arguments: args });
}

function expectOk(result: Result, name: string): string {
  const text = resultText(result);
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return text;
}

function expectError(result: Result, name: string): string {
  const text = resultText(result);
  if (!result.isError) throw new Error(`${name} was expected to fail but answered: ${text}`);
  return text;
}

/** Arguments as a request line shows them, with the handle cut short. */
function shown(args: Record<string, unknown>): string {
  const copy = { ...args };
  if (typeof copy.app_handle === "string") copy.app_handle = shorten(copy.app_handle);
  return JSON.stringify(copy);
}

/** One line per event of a wait_for_events result. */
function eventLines(events: Record<string, unknown>[]): string {
  return events.map((e) =>
    e.type === "app_event"
      ? `${e.name} ${JSON.stringify(e.payload ?? null)}  ${dim(`cursor ${e.cursor}`)}`
      : `${e.type}  ${dim(`cursor ${e.cursor}`)}`
  ).join("\n") || "(none)";
}

async function session(conn: Connection, second: () => Promise<Connection>): Promise<void> {
  request(1, "Initialize", "initialize", dim("(done by the client on connect)"));
  const server = conn.client.getServerVersion();
  answer(
    `${server?.name ?? "?"} ${server?.version ?? "?"}, protocol ${
      conn.client.getNegotiatedProtocolVersion() ?? "?"
    }`,
  );

  request(2, "List the tools", "tools/list");
  const { tools } = await step("tools/list", () => conn.client.listTools());
  const groups = { fixed: [] as string[], app: [] as string[], generated: [] as string[] };
  for (const tool of tools) {
    if (tool._meta?.["calimero/app"]) groups.generated.push(tool.name);
    else if (APP_TOOLS.has(tool.name)) groups.app.push(tool.name);
    else groups.fixed.push(tool.name);
  }
  const few = (names: string[]) =>
    names.slice(0, 4).join(", ") + (names.length > 4 ? `, … (${names.length - 4} more)` : "");
  answer(
    [
      `${tools.length} tools`,
      `fixed (the node):        ${groups.fixed.length}  ${dim(few(groups.fixed))}`,
      `app (generic):           ${groups.app.length}  ${dim(few(groups.app))}`,
      `generated (per method):  ${groups.generated.length}  ${dim(few(groups.generated))}`,
    ].join("\n"),
  );

  request(3, "Installed applications", "tools/call list_applications", "{}");
  const listed = await step("list_applications", () => callTool(conn, "list_applications", {}));
  expectOk(listed, "list_applications");
  const apps = JSON.parse(firstText(listed)).apps as {
    package: string | null;
    appVersion: string | null;
    metadata: { name?: string } | null;
  }[];
  answer(
    apps.map((a) => `${a.package ?? "?"} ${a.appVersion ?? ""}  ${dim(a.metadata?.name ?? "")}`)
      .join("\n"),
  );

  const selectArgs = { app: "kv-store", context: "demo" };
  request(
    4,
    'Select the kv-store app in context "demo"',
    "tools/call select_app",
    shown(selectArgs),
  );
  const selected = await step("select_app", () => callTool(conn, "select_app", selectArgs));
  expectOk(selected, "select_app");
  const picked = JSON.parse(firstText(selected)) as {
    package: string;
    version: string;
    context: { id: string } | null;
    app_handle: string;
    tools?: string[];
    watchingEvents?: string;
  };
  const handle = picked.app_handle;
  answer(
    [
      `${picked.package} ${picked.version}, context ${shorten(picked.context?.id ?? "none", 8, 4)}`,
      `app_handle ${shorten(handle)} ${
        dim(`(${handle.length} characters, signed by this server)`)
      }`,
      `tools: ${few(picked.tools ?? [])}`,
      `watching events: ${picked.watchingEvents ?? "no"}`,
    ].join("\n"),
  );

  const setArgs = { app_handle: handle, key: "greeting", value: "hello from mero-mcp" };
  request(5, "Store a value", "tools/call kv_store_set", shown(setArgs));
  const set = await step("kv_store_set", () => callTool(conn, "kv_store_set", setArgs));
  answer(expectOk(set, "kv_store_set"));

  const getArgs = { app_handle: handle, key: "greeting" };
  request(6, "Read it back", "tools/call kv_store_get", shown(getArgs));
  const got = await step("kv_store_get", () => callTool(conn, "kv_store_get", getArgs));
  expectOk(got, "kv_store_get");
  // The value is the first block; the second says whose data it is.
  const value = firstText(got);
  if (JSON.parse(value) !== setArgs.value) {
    throw new Error(`kv_store_get read back ${value}, not the value just set`);
  }
  // Generated tools declare no outputSchema: an app's value travels once, as text (docs/tools.md, "Structured results").
  answer(
    `${value}  ${
      dim(
        got.structuredContent === undefined
          ? "(text only: an app's value travels once, as its first text block)"
          : `structuredContent: ${JSON.stringify(got.structuredContent)}`,
      )
    }`,
  );

  const bare = { key: "greeting" };
  request(7, "A refusal: the same call without a handle", "tools/call kv_store_get", shown(bare));
  const refused = await step("refusal", () => callTool(conn, "kv_store_get", bare));
  answer(`isError: true\n${expectError(refused, "kv_store_get without a handle")}`, true);

  const missArgs = { app_handle: handle, key: "no-such-key" };
  request(
    8,
    "A guest error: the app's own error",
    "tools/call kv_store_get_result",
    shown(missArgs),
  );
  const missed = await step("guest error", () => callTool(conn, "kv_store_get_result", missArgs));
  answer(`isError: true\n${expectError(missed, "kv_store_get_result of a missing key")}`, true);

  // select_app started watching the context: what happened in it since is kept, decoded with the app's ABI.
  const sinceArgs = { app_handle: handle, timeout_s: 0 };
  request(9, "Events since select_app", "tools/call wait_for_events", shown(sinceArgs));
  const since = await step("wait_for_events", () => callTool(conn, "wait_for_events", sinceArgs));
  const kept = JSON.parse(expectOk(since, "wait_for_events"));
  answer(eventLines(kept.events));

  // A second agent (its own server process, the 2026-07-28 protocol) writes while this one waits.
  const waitArgs = { app_handle: handle, after: kept.cursor, timeout_s: 10 };
  request(
    10,
    "Wait while a second agent writes",
    "tools/call wait_for_events",
    `${shown(waitArgs)} ${dim("(second client: call kv-store set)")}`,
  );
  const other = await step("starting a second server", second);
  try {
    const waiting = callTool(conn, "wait_for_events", waitArgs);
    const wrote = await step("the second agent's write", () =>
      callTool(other, "call", {
        app: "kv-store",
        context: "demo",
        method: "set",
        args: { key: "greeting", value: "hello back" },
      }));
    expectOk(wrote, "call set");
    const woke = JSON.parse(
      expectOk(await step("wait_for_events", () => waiting), "wait_for_events"),
    );
    const updated = (woke.events as Record<string, unknown>[]).find((e) => e.name === "Updated");
    if (!updated) {
      throw new Error(`wait_for_events returned ${JSON.stringify(woke.events)}, not the write`);
    }
    answer(eventLines(woke.events));
  } finally {
    await other.close().catch(() => {});
  }
}

/** How to run the server from a real MCP client: this checkout's main.ts (or the binary under test). */
function snippets(): void {
  const binary = Deno.env.get("MERO_MCP_BIN");
  const command = binary ?? Deno.execPath();
  const args = binary ? [] : [...SERVER_RUN_ARGS, join(ROOT, "main.ts")];
  const nodeUrl = Deno.env.get("CALIMERO_NODE_URL")?.trim();
  const quote = (s: string) => /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
  const env = nodeUrl ? { CALIMERO_NODE_URL: nodeUrl } : undefined;
  say();
  say(bold("Use it with your own node"));
  say(
    "mero-mcp finds a local node by itself (~/.calimero, then ports 2528, 2428, 2529, 2429);",
  );
  say("for any other node, set CALIMERO_NODE_URL.");
  say();
  say(dim("Claude Code:"));
  say(
    [
      "claude mcp add",
      ...(nodeUrl ? ["--env", quote(`CALIMERO_NODE_URL=${nodeUrl}`)] : []),
      "mero --",
      quote(command),
      ...args.map(quote),
    ].join(" "),
  );
  if (!nodeUrl) {
    say(dim('  (another node: add --env CALIMERO_NODE_URL=http://host:port before "mero")'));
  }
  say();
  say(
    dim("Cursor (.cursor/mcp.json), Claude Desktop (claude_desktop_config.json) and most others:"),
  );
  const mero = [
    `      "command": ${JSON.stringify(command)},`,
    `      "args": [${args.map((a) => JSON.stringify(a)).join(", ")}]${env ? "," : ""}`,
    ...(env ? [`      "env": ${JSON.stringify(env)}`] : []),
  ];
  say(['{\n  "mcpServers": {\n    "mero": {', ...mero, "    }\n  }\n}"].join("\n"));
  if (!nodeUrl) {
    say(dim(`  (another node: add "env": { "CALIMERO_NODE_URL": "http://host:port" })`));
  }
  say();
  say(dim("VS Code (.vscode/mcp.json):"));
  say(
    ['{\n  "servers": {\n    "mero": {', '      "type": "stdio",', ...mero, "    }\n  }\n}"].join(
      "\n",
    ),
  );
  say();
  say(dim("Claude Code's skill for working in shared contexts (the plugin bundles it):"));
  say(
    `mkdir -p ~/.claude/skills && cp -r ${
      quote(join(ROOT, "plugins/mero-mcp/skills/calimero"))
    } ~/.claude/skills/`,
  );
  say(
    dim('The short key "mero" keeps prefixed tool names (mcp__mero__…) within clients\' limits.'),
  );
  say(dim("Then `deno task dev doctor` shows what the server sees; docs/install.md has the rest."));
}

async function main(): Promise<number> {
  let sim: SimNode | null = null;
  let conn: Connection | null = null;
  let home: string | null = null;
  try {
    say(
      bold("mero-mcp demo") + dim(" — a simulated Calimero node, the real server, the MCP client"),
    );
    sim = await step(
      "starting the simulated node",
      () => startSimNode({ apps: [...DEMO_APPS] }),
      "The simulated node runs in this process on a loopback port with the sample files in " +
        "tests/sim_node/apps/fixtures/: the message above names which of the two failed.",
    );
    const node = sim;
    await step(
      'creating the kv-store context "demo"',
      () => node.createContext(node.appId("kv-store"), { alias: "demo" }),
    );
    const env = await isolatedEnv({ CALIMERO_NODE_URL: node.url });
    home = env.HOME;
    const { command, args } = serverCommand();
    say(`   node     ${node.url}  ${dim(`apps: ${DEMO_APPS.join(", ")}; context alias "demo"`)}`);
    say(`   server   ${[command === Deno.execPath() ? "deno" : command, ...args].join(" ")}`);
    say(`   state    ${env.CALIMERO_MCP_STATE_DIR}  ${dim("(temporary, removed at the end)")}`);
    conn = await step(
      "starting the server",
      () => connect({ era: "2025-11-25", env }),
      "The server process did not start or did not answer `initialize`: its stderr above says why " +
        "(`deno task dev doctor` checks the same configuration from a terminal).",
    );
    let secondHome: string | null = null;
    try {
      await session(conn, async () => {
        const env2 = await isolatedEnv({ CALIMERO_NODE_URL: node.url });
        secondHome = env2.HOME;
        return await connect({ era: "2026-07-28", env: env2 });
      });
    } finally {
      if (secondHome) await Deno.remove(secondHome, { recursive: true }).catch(() => {});
    }
    snippets();
    say();
    say(green("Demo finished: everything above ran against the real server."));
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const stderr = conn?.stderr().trim();
    writeAll(
      Deno.stderr,
      `\nThe demo failed at ${message}\n` +
        (stderr ? `The server said on stderr:\n${stderr.slice(-2000)}\n` : "") +
        `${error instanceof StepError ? error.remedy : SESSION_REMEDY}\n`,
    );
    return 1;
  } finally {
    await conn?.close().catch(() => {});
    await sim?.close().catch(() => {});
    if (home) await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) Deno.exit(await main());
