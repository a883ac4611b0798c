// Test-only entry for R4: main's own start function with the R4 probe worker (the real server plus a probe).
// Once main has dropped its permissions, it also reports what it can still reach itself, as one `[r4-main]` line.

import { start } from "../../main.ts";
import { CONFIG_ENV_VARS } from "../../src/config/config.ts";

const env: Record<string, string | undefined> = {};
for (const name of CONFIG_ENV_VARS) env[name] = Deno.env.get(name);
const nodeHome = env.CALIMERO_NODE_HOME ?? "";
const nodePort = Number(Deno.env.get("R4_NODE_PORT") ?? "0");

/** Names how an attempt ended: "ok" or the error's class name. */
async function attempt(f: () => unknown): Promise<string> {
  try {
    await f();
    return "ok";
  } catch (error) {
    return (error as Error).name;
  }
}

// main revokes read, write, net and env once the worker has loaded: the read permission's change is the signal.
const read = await Deno.permissions.query({ name: "read" });
read.onchange = async () => {
  if (read.state === "granted") return;
  const results = {
    readNodeHome: await attempt(() => Deno.readTextFile(`${nodeHome}/default/config.toml`)),
    writeNodeHome: await attempt(() => Deno.writeTextFile(`${nodeHome}/main-intruder.txt`, "x")),
    net: await attempt(() => Deno.connect({ hostname: "127.0.0.1", port: nodePort })),
    env: await attempt(() => Deno.env.get("HOME")),
    spawn: await attempt(() => new Deno.Command("true").output()),
  };
  Deno.stderr.writeSync(new TextEncoder().encode(`[r4-main] ${JSON.stringify(results)}\n`));
};

Deno.exit(
  await start({
    argv: Deno.args,
    env,
    workerUrl: new URL("./sandbox_probe_worker.ts", import.meta.url),
  }),
);
