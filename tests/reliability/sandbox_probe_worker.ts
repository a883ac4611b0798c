// Test-only worker for R4: the real server worker plus a probe. When the file `r4-probe` appears in the state
// directory (the worker reads stdin itself, so the trigger cannot ride on a line), the probe tries every way out of
// the sandbox it can think of and reports each outcome on stderr as one `[r4-probe] {...}` line. The product's
// worker never loads this.

import "../../src/server/index.ts";
import type { Config } from "../../src/config/config.ts";

/**
 * Names how an attempt ended: "ok", "NotCapable", or another error's class name and message. Deno's module loader
 * reports a denied dynamic import as a TypeError saying "Requires <kind> access": that counts as NotCapable.
 */
async function attempt(f: () => unknown): Promise<string> {
  try {
    await f();
    return "ok";
  } catch (error) {
    const { name, message } = error as Error;
    if (name === "NotCapable") return name;
    if (name === "TypeError" && /^Requires (read|import|net) access/.test(String(message))) {
      return "NotCapable";
    }
    return `${name}: ${String(message).slice(0, 160)}`;
  }
}

let config: Config | null = null;

(self as unknown as Worker).addEventListener("message", (event: MessageEvent) => {
  const data = event.data as { type?: string; config?: Config };
  if (data?.type !== "config" || config) return;
  config = data.config!;
  const trigger = `${config.stateDir}/r4-probe`;
  const timer = setInterval(async () => {
    try {
      await Deno.stat(trigger);
    } catch {
      return;
    }
    clearInterval(timer);
    await probe(config!);
  }, 100);
});

async function probe(config: Config): Promise<void> {
  const { stateDir, nodeHome } = config;
  const nodeUrl = new URL(config.nodeUrl!);
  const home = nodeHome.replace(/\/calimero$/, "");
  const results: Record<string, string> = {
    // files outside the state dir
    readNodeHome: await attempt(() => Deno.readTextFile(`${nodeHome}/default/config.toml`)),
    readNodeHomeUrl: await attempt(() =>
      Deno.readTextFile(new URL(`file://${nodeHome}/default/config.toml`))
    ),
    readDotDot: await attempt(() =>
      Deno.readTextFile(`${stateDir}/../calimero/default/config.toml`)
    ),
    listNodeHome: await attempt(() => Array.fromAsync(Deno.readDir(nodeHome))),
    listRoot: await attempt(() => Array.fromAsync(Deno.readDir("/"))),
    statOutside: await attempt(() => Deno.stat(`${nodeHome}/default/config.toml`)),
    readEtc: await attempt(() => Deno.readTextFile("/etc/hosts")),
    fetchFile: await attempt(() => fetch(`file://${nodeHome}/default/config.toml`)),
    importJs: await attempt(() => import(`file://${nodeHome}/outside.js`)),
    importJson: await attempt(() =>
      import(`file://${nodeHome}/outside.json`, { with: { type: "json" } })
    ),
    writeOutside: await attempt(() => Deno.writeTextFile(`${home}/intruder.txt`, "x")),
    writeTemp: await attempt(() => Deno.makeTempFile()),
    chmodOutside: await attempt(() => Deno.chmod(`${nodeHome}/default/config.toml`, 0o666)),
    removeOutside: await attempt(() => Deno.remove(`${nodeHome}/default/config.toml`)),
    renameOut: await attempt(() => Deno.rename(`${stateDir}/handle.key`, `${home}/stolen.key`)),
    symlinkOut: await attempt(() =>
      Deno.symlink(`${nodeHome}/default/config.toml`, `${stateDir}/link.toml`)
    ),
    hardLinkIn: await attempt(() =>
      Deno.link(`${nodeHome}/default/config.toml`, `${stateDir}/hard.toml`)
    ),
    cwd: await attempt(() => Deno.cwd()),
    // the network beyond the node's address
    otherHost: await attempt(() => fetch("http://127.0.0.2:8080/")),
    otherPort: await attempt(() => Deno.connect({ hostname: nodeUrl.hostname, port: 9 })),
    otherHostSamePort: await attempt(() =>
      Deno.connect({ hostname: "127.0.0.2", port: Number(nodeUrl.port) })
    ),
    webSocket: await attempt(() => new WebSocket("ws://127.0.0.2:80/")),
    listen: await attempt(() => Deno.listen({ hostname: "127.0.0.1", port: 0 })),
    dns: await attempt(() => Deno.resolveDns("example.com", "A")),
    unixSocket: await attempt(() => Deno.connect({ transport: "unix", path: `${home}/sock` })),
    // environment, processes, system, native code, escalation
    env: await attempt(() => Deno.env.get("HOME")),
    envAll: await attempt(() => Deno.env.toObject()),
    spawn: await attempt(() => new Deno.Command("true").output()),
    kill: await attempt(() => Deno.kill(1, "SIGCONT")),
    ffi: await attempt(() => Deno.dlopen("libc.so.6", {})),
    sys: await attempt(() => Deno.hostname()),
    sysMemory: await attempt(() => Deno.systemMemoryInfo()),
    escalateWorker: await attempt(() =>
      new Worker("data:text/javascript,1", {
        type: "module",
        deno: { permissions: { read: true, net: true, env: true, run: true } },
      })
    ),
    remoteImport: await attempt(() => import(["https:", "", "example.com", "x.js"].join("/"))),
    // the state dir itself is usable
    writeStateDir: await attempt(() => Deno.writeTextFile(`${stateDir}/r4-probe.txt`, "x")),
    readStateDir: await attempt(() => Deno.readFile(`${stateDir}/handle.key`)),
  };
  await Deno.remove(`${stateDir}/r4-probe.txt`).catch(() => {});
  Deno.stderr.writeSync(new TextEncoder().encode(`[r4-probe] ${JSON.stringify(results)}\n`));
}
