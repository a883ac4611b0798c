// Test-only worker module: the real server worker, plus a probe that tries what the sandbox must forbid and
// reports each outcome on stderr as one `[probe] {...}` line.
// deno-lint-ignore-file no-console -- the probe reports on stderr, like the server.

import "../../src/server/index.ts";
import type { Config } from "../../src/config/config.ts";

/** Runs one attempt and names how it ended: "ok" or the error's class name. */
async function attempt(f: () => unknown): Promise<string> {
  try {
    await f();
    return "ok";
  } catch (error) {
    return (error as Error).name;
  }
}

(self as unknown as Worker).addEventListener("message", async (event: MessageEvent) => {
  if (event.data?.type !== "config") return;
  const config = event.data.config as Config;
  // Let the server finish starting, so the probe runs beside a live server.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const outside = config.nodeHome;
  const results = {
    readNodeHome: await attempt(() => Deno.readTextFile(`${outside}/default/config.toml`)),
    listNodeHome: await attempt(() => Array.fromAsync(Deno.readDir(outside))),
    readEtc: await attempt(() => Deno.readTextFile("/etc/hosts")),
    writeOutside: await attempt(() => Deno.writeTextFile(`${outside}/intruder.txt`, "x")),
    writeStateDir: await attempt(() => Deno.writeTextFile(`${config.stateDir}/probe.txt`, "x")),
    otherHost: await attempt(() => fetch("http://127.0.0.2:8080/")),
    otherPort: await attempt(() => Deno.connect({ hostname: "127.0.0.1", port: 9 })),
    env: await attempt(() => Deno.env.get("HOME")),
    spawn: await attempt(() => new Deno.Command("true").output()),
    spawnShell: await attempt(() => new Deno.Command("/bin/sh", { args: ["-c", "true"] }).output()),
    // Code mode's runner: this executable itself, and nothing else (src/script/session.ts).
    spawnSelf: await attempt(() =>
      new Deno.Command(Deno.execPath(), { args: ["--version"], clearEnv: true }).output()
    ),
    ffi: await attempt(() => Deno.dlopen("libc.so.6", {})),
    sys: await attempt(() => Deno.hostname()),
  };
  console.error(`[probe] ${JSON.stringify(results)}`);
});
