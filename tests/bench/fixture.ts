// The common set-up of the call benchmarks (B2, B5, B6): a simulated node with the kv-store app and N
// contexts, the server spawned against it and initialised, and one app_handle per context from select_app.

import { type SimNode, startSimNode } from "../sim_node/mod.ts";
import { callTool, initialize, resultJson, spawnServer, type StdioServer } from "./stdio_client.ts";

/** The entry that runs the real product. */
export const MAIN = "main.ts";
/** The bench entry: the real product plus the fetch timer (fetch_timer.ts). */
export const TIMED_MAIN = "tests/bench/timed_main.ts";

/** A running node + server pair with kv-store contexts selected. */
export interface KvFixture {
  sim: SimNode;
  server: StdioServer;
  applicationId: string;
  /** Context ids, one per requested context. */
  contexts: string[];
  /** The app_handle select_app returned for each context, in the same order. */
  handles: string[];
  close(): Promise<void>;
}

/** Starts the pair; `entry` picks the plain or the timed server. */
export async function kvFixture(
  options: { contexts: number; entry?: string; env?: Record<string, string>; flags?: string[] },
): Promise<KvFixture> {
  const sim = await startSimNode({ apps: ["kv-store"] });
  const applicationId = sim.appId("kv-store");
  const contexts = Array.from(
    { length: options.contexts },
    (_, i) => sim.createContext(applicationId, { name: `bench-${i}` }).contextId,
  );
  const server = await spawnServer(
    options.entry ?? MAIN,
    { CALIMERO_NODE_URL: sim.url, ...options.env },
    options.flags,
  );
  try {
    await initialize(server);
    const handles: string[] = [];
    for (const context of contexts) {
      const selected = await callTool(server, "select_app", { app: "kv-store", context });
      handles.push(resultJson(selected).app_handle as string);
    }
    return {
      sim,
      server,
      applicationId,
      contexts,
      handles,
      async close() {
        await server.close();
        await sim.close();
      },
    };
  } catch (error) {
    await server.close();
    await sim.close();
    throw new Error(`${(error as Error).message}\nserver stderr:\n${server.stderr()}`);
  }
}
