// Real merod nodes on this machine, booted the way merobox boots them natively (merobox commands/binary_manager.py
// and config_utils.py `apply_e2e_defaults`, read for facts): `merod --home H --node N init --server-port P
// --swarm-port S`, then the node's config.toml set for a closed test fleet — no bootstrap peers, discovery by mDNS
// on this host, a rendezvous namespace of its own, quick sync — then `merod --home H --node N run`. Proxy auth
// (core's default), so the API needs no token.
//
// As a script: `deno run -A tests/real_nodes/boot.ts [count]` boots the nodes, prints one `MERO_E2E_NODE_URL…`
// line per node for the real-node suite and CI, and runs until interrupted.

import { parse, stringify } from "smol-toml";
import { join } from "path";

/** One running merod. */
export interface RealNode {
  name: string;
  url: string;
  home: string;
  /** The node's combined stdout and stderr so far (for a failure's message). */
  log(): Promise<string>;
}

/** Nodes booted together, and how to stop them. */
export interface RealFleet extends AsyncDisposable {
  nodes: RealNode[];
  stop(): Promise<void>;
}

/** How long one node may take from `run` to answering its health route. */
const READY_MS = 60_000;

/** The merod to use: `MERO_MCP_MEROD`, else `../shared/bin/merod` beside the clone; null with the reason. */
export async function findMerod(): Promise<{ path: string } | { reason: string }> {
  const named = Deno.env.get("MERO_MCP_MEROD");
  const shared = new URL("../../../shared/bin/merod", import.meta.url).pathname;
  for (const path of named ? [named] : [shared]) {
    try {
      if ((await Deno.stat(path)).isFile) return { path };
    } catch { /* not there */ }
  }
  return {
    reason: named
      ? `MERO_MCP_MEROD=${named} is not a file`
      : "no merod: set MERO_MCP_MEROD, or put a built merod at ../shared/bin/merod",
  };
}

/** A TCP port nothing listens on now. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** The settings merobox's e2e mode writes, each only where the node's config has that table. */
function testFleetConfig(text: string, fleet: string): string {
  const config = parse(text) as Record<string, Record<string, unknown>>;
  const table = (key: string) => (config[key] ??= {}) as Record<string, unknown>;
  table("bootstrap").nodes = [];
  const discovery = table("discovery");
  discovery.mdns = true;
  const rendezvous = (discovery.rendezvous ??= {}) as Record<string, unknown>;
  rendezvous.namespace = `calimero/mero-mcp-tests/${fleet}`;
  const sync = table("sync");
  sync.timeout_ms = 30_000;
  sync.interval_ms = 500;
  sync.frequency_ms = 1_000;
  return stringify(config);
}

async function run(merod: string, args: string[], env: Record<string, string>): Promise<string> {
  const out = await new Deno.Command(merod, { args, env, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`merod ${args.join(" ")} failed:\n${text.slice(-4000)}`);
  return text;
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/admin-api/health`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/** Boots `count` nodes of `merod` under a fresh directory; each answers its health route before this returns. */
export async function bootFleet(merod: string, count = 2): Promise<RealFleet> {
  const root = await Deno.makeTempDir({ prefix: "mero-mcp-merod-" });
  const fleet = crypto.randomUUID().slice(0, 8);
  const processes: { child: Deno.ChildProcess; logFile: string }[] = [];
  const nodes: RealNode[] = [];
  const stop = async () => {
    for (const { child } of processes) {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
    }
    await Promise.all(processes.map(({ child }) => child.status));
    await Deno.remove(root, { recursive: true }).catch(() => {});
  };
  try {
    for (let i = 1; i <= count; i++) {
      const name = `node${i}`;
      const serverPort = freePort();
      const env = { RUST_LOG: "info", NODE_NAME: name, CALIMERO_HOME: root };
      await run(merod, [
        "--home",
        root,
        "--node",
        name,
        "init",
        "--server-port",
        String(serverPort),
        "--swarm-port",
        String(freePort()),
      ], env);
      const configPath = join(root, name, "config.toml");
      await Deno.writeTextFile(
        configPath,
        testFleetConfig(await Deno.readTextFile(configPath), fleet),
      );
      const logFile = join(root, `${name}.log`);
      const log = await Deno.open(logFile, { write: true, create: true });
      const child = new Deno.Command(merod, {
        args: ["--home", root, "--node", name, "run"],
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      // Both streams into the node's log file, for a failure's message.
      const pump = async (stream: ReadableStream<Uint8Array>) => {
        for await (const chunk of stream) await log.write(chunk).catch(() => 0);
      };
      Promise.all([pump(child.stdout), pump(child.stderr)]).finally(() => log.close());
      processes.push({ child, logFile });
      nodes.push({
        name,
        url: `http://127.0.0.1:${serverPort}`,
        home: join(root, name),
        log: () => Deno.readTextFile(logFile).catch(() => ""),
      });
    }
    const deadline = Date.now() + READY_MS;
    for (const node of nodes) {
      while (!await healthy(node.url)) {
        if (Date.now() > deadline) {
          throw new Error(
            `${node.name} did not answer within ${READY_MS / 1000} s:\n${
              (await node.log()).slice(-4000)
            }`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, stop, [Symbol.asyncDispose]: stop };
}

/** One line to a stream: the URLs for scripts on stdout, what happens on stderr. */
function say(stream: { writeSync(p: Uint8Array): number }, line: string): void {
  stream.writeSync(new TextEncoder().encode(`${line}\n`));
}

if (import.meta.main) {
  const found = await findMerod();
  if ("reason" in found) {
    say(Deno.stderr, found.reason);
    Deno.exit(2);
  }
  const fleet = await bootFleet(found.path, Number(Deno.args[0] ?? 2));
  fleet.nodes.forEach((node, i) => {
    say(Deno.stdout, `MERO_E2E_NODE${i === 0 ? "" : i + 1}_URL=${node.url}`);
  });
  say(Deno.stderr, `${fleet.nodes.length} nodes running; Ctrl-C stops them`);
  // Both signals stop the nodes first: a merod left behind would be found by the next fleet's mDNS.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, async () => {
      await fleet.stop();
      Deno.exit(0);
    });
  }
}
