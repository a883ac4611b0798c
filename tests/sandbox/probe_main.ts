// Test-only entry: main's own start function, with a worker module that loads the real server plus a probe.
// The product's entry (main.ts) never loads a probe.

import { start } from "../../main.ts";
import { CONFIG_ENV_VARS } from "../../src/config/config.ts";

const env: Record<string, string | undefined> = {};
for (const name of CONFIG_ENV_VARS) env[name] = Deno.env.get(name);
Deno.exit(
  await start({ argv: Deno.args, env, workerUrl: new URL("./probe_worker.ts", import.meta.url) }),
);
