// Test-only entry: main's start function with a worker that loads the real server and then dies.

import { start } from "../../main.ts";
import { CONFIG_ENV_VARS } from "../../src/config/config.ts";

const env: Record<string, string | undefined> = {};
for (const name of CONFIG_ENV_VARS) env[name] = Deno.env.get(name);
Deno.exit(
  await start({ argv: Deno.args, env, workerUrl: new URL("./crash_worker.ts", import.meta.url) }),
);
