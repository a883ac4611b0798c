// The one end-to-end fixture: a simulated node and the real server connected to it with the official client, cleaned
// up by `await using`. Most suites start here; the harness beneath it (harness.ts) stays for what needs more control.

import assert from "assert";
import {
  askingClient,
  type CallResult,
  connect,
  type Connection,
  type Era,
  firstText,
  tempHome,
} from "./harness.ts";
import { type SimNode, type SimNodeOptions, startSimNode } from "./sim_node/mod.ts";

/** How the person answers a question, when the fixture's client can be asked. */
export type Reply = () => {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean>;
};

/** What {@link serverOn} starts. */
export interface ServerOnOptions {
  /** The simulated node's options (its apps: default kv-store). */
  sim?: SimNodeOptions;
  /** The protocol era the client speaks (default 2026-07-28). */
  era?: Era;
  /** More environment for the server (CALIMERO_NODE_URL is the simulated node's). */
  env?: Record<string, string>;
  /** Server flags. */
  args?: string[];
  /** Makes the client one that can be asked (form elicitation), answering with this. */
  reply?: Reply;
  /** Written into the state directory before the server starts (file name → content). */
  stateFiles?: Record<string, string>;
}

/** A simulated node with the real server on it, and the calls a test makes. */
export interface Served extends AsyncDisposable {
  sim: SimNode;
  env: Record<string, string>;
  client: Connection["client"];
  /** The connection, for the harness's helpers (callOk, callJson, callError…). */
  conn: Connection;
  /** The questions the person was asked (an asking client only). */
  asked: string[];
  /** What the server wrote on stderr (not for an asking client). */
  stderr(): string;
  /** Calls a tool; its result as is. */
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  /** Calls a tool that must succeed and answer JSON. */
  // deno-lint-ignore no-explicit-any
  json(name: string, args?: Record<string, unknown>): Promise<any>;
  /** Calls a tool that must fail; its text. */
  error(name: string, args?: Record<string, unknown>): Promise<string>;
}

/** Starts a simulated node and the real server on it, connected in `era`; `await using` stops both. */
export async function serverOn(options: ServerOnOptions = {}): Promise<Served> {
  const sim = await startSimNode({ apps: ["kv-store"], ...options.sim });
  const home = await tempHome({ CALIMERO_NODE_URL: sim.url, ...options.env });
  try {
    const stateDir = home.env.CALIMERO_MCP_STATE_DIR;
    if (options.stateFiles) {
      await Deno.mkdir(stateDir, { recursive: true, mode: 0o700 });
      for (const [name, text] of Object.entries(options.stateFiles)) {
        await Deno.writeTextFile(`${stateDir}/${name}`, text, { mode: 0o600 });
      }
    }
    const era = options.era ?? "2026-07-28";
    let conn: Connection;
    let asked: string[] = [];
    if (options.reply) {
      const asking = await askingClient(era, home.env, options.reply, options.args);
      asked = asking.asked;
      conn = { client: asking.client, stderr: () => "", close: () => asking.client.close() };
    } else {
      conn = await connect({ era, env: home.env, args: options.args });
    }
    const client = conn.client;
    const call = (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args }) as Promise<CallResult>;
    return {
      sim,
      env: home.env,
      client,
      conn,
      asked,
      stderr: conn.stderr,
      call,
      async json(name, args) {
        const result = await call(name, args);
        assert.ok(!result.isError, `${name} failed: ${firstText(result)}`);
        return JSON.parse(firstText(result));
      },
      async error(name, args) {
        const result = await call(name, args);
        assert.equal(result.isError, true, `${name} should fail, got: ${firstText(result)}`);
        return firstText(result);
      },
      async [Symbol.asyncDispose]() {
        await client.close().catch(() => {});
        await sim.close();
        await home.cleanup();
      },
    };
  } catch (error) {
    await sim.close();
    await home.cleanup();
    throw error;
  }
}
