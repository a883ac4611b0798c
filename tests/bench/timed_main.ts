// Bench-only entry: main's own start function with a worker that runs the real server plus a fetch timer
// (timed_worker.ts), so B2 can subtract the node's time from a call. The product's entry never loads it.

import { start } from "../../main.ts";
import { CONFIG_ENV_VARS } from "../../src/config/config.ts";

const env: Record<string, string | undefined> = {};
for (const name of CONFIG_ENV_VARS) env[name] = Deno.env.get(name);
Deno.exit(
  await start({ argv: Deno.args, env, workerUrl: new URL("./timed_worker.ts", import.meta.url) }),
);
