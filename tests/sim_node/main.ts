// `deno task sim-node`: starts a simulated node by hand (every sample app, one namespace, one
// kv-store context aliased `demo`) and prints how to point mero-mcp at it. Stop it with Ctrl-C.

import { type SimNode, type SimNodeOptions, startSimNode } from "./mod.ts";

const USAGE =
  `Usage: deno task sim-node [--port N] [--auth user:pass] [--keep-abi-docs] [--no-abi-route] [--peers N]

  --port N          listen on port N (default 2528, the desktop app's port; 0 = random)
  --auth user:pass  embedded auth mode with these credentials (default: no auth)
  --keep-abi-docs   serve ABIs with doc, returns_doc, destructive, idempotent
  --no-abi-route    answer a bare 404 on the ABI route (clients read the wasm custom section)
  --peers N         also start N peer nodes on random ports, sharing one network with the first (they hold
                    no namespace until invited), for trying two nodes: .ci/real-nodes --sim uses them
`;

function out(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text));
}

/** Parses the command line; a message string when it is wrong. */
export function parseArgs(args: string[]): (SimNodeOptions & { peers?: number }) | string {
  const options: SimNodeOptions & { peers?: number } = { port: 2528 };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--keep-abi-docs") options.keepAbiDocs = true;
    else if (arg === "--no-abi-route") options.abiRoute = false;
    else if (arg === "--peers") {
      const peers = Number(args[++i]);
      if (!Number.isInteger(peers) || peers < 0 || peers > 8) {
        return `--peers needs a number from 0 to 8, got "${args[i]}".`;
      }
      options.peers = peers;
    } else if (arg === "--port") {
      const port = Number(args[++i]);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        return `--port needs a number from 0 to 65535, got "${args[i]}".`;
      }
      options.port = port;
    } else if (arg === "--auth") {
      const value = args[++i] ?? "";
      const colon = value.indexOf(":");
      if (colon <= 0 || colon === value.length - 1) {
        return `--auth needs user:pass (both non-empty), got "${value}".`;
      }
      options.auth = { username: value.slice(0, colon), password: value.slice(colon + 1) };
    } else if (arg === "--help" || arg === "-h") return USAGE;
    else return `Unknown argument "${arg}".\n\n${USAGE}`;
  }
  return options;
}

async function start(options: SimNodeOptions): Promise<SimNode> {
  try {
    return await startSimNode(options);
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse) || options.port === 0) throw error;
    out(`Port ${options.port} is in use; listening on a random port instead.\n`);
    return await startSimNode({ ...options, port: 0 });
  }
}

async function main(): Promise<void> {
  const parsed = parseArgs(Deno.args);
  if (typeof parsed === "string") {
    out(parsed.endsWith("\n") ? parsed : `${parsed}\n`);
    Deno.exit(parsed === USAGE ? 0 : 2);
  }
  const { peers = 0, ...nodeOptions } = parsed;
  const sim = await start(nodeOptions);
  const others: SimNode[] = [];
  for (let i = 0; i < peers; i++) {
    others.push(await startSimNode({ ...nodeOptions, port: 0, seed: `peer-${i + 2}` }));
  }
  const kv = sim.appId("kv-store");
  const namespace = sim.createNamespace(kv, "demo");
  const { contextId } = sim.createContext(kv, { groupId: namespace, name: "demo", alias: "demo" });
  const auth = parsed.auth
    ? ` CALIMERO_USERNAME=${parsed.auth.username} CALIMERO_PASSWORD=<the password you gave>`
    : "";
  out(
    [
      `Simulated Calimero node listening on ${sim.url}`,
      ...others.map((peer, i) => `Peer node ${i + 2} listening on ${peer.url}`),
      `  apps:       ${sim.state.apps.size} sample apps (kv-store ${kv})`,
      "              broken-abi and garbled-abi are broken on purpose: clients show them as failing to load",
      `  namespace:  ${namespace}`,
      `  context:    ${contextId} (kv-store, alias "demo")`,
      `  auth:       ${parsed.auth ? "embedded (username/password)" : "none"}`,
      `  ABI route:  ${parsed.abiRoute === false ? "off (bare 404)" : "on"}`,
      "",
      "Point mero-mcp at it:",
      `  CALIMERO_NODE_URL=${sim.url}${auth} deno task dev`,
      "Install an app on it (nothing is downloaded: the file name picks a sample app and version):",
      '  install_application {"url": "https://apps.example.com/kv-store-1.1.0.mpk"}',
      ...(others.length > 0
        ? [
          'Share the demo context with a peer (docs/events-and-channel.md, "Two nodes by hand"):',
          `  on ${sim.url}: invite_to_namespace {"namespace": "${namespace}"}`,
          `  on ${others[0].url}: join_namespace with that invitation, then list_contexts`,
        ]
        : []),
      "",
      "Press Ctrl-C to stop.",
      "",
    ].join("\n"),
  );
  const stop = () =>
    Promise.all([sim, ...others].map((node) => node.close())).finally(() => Deno.exit(0));
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}

if (import.meta.main) await main();
