// The "Two nodes by hand" recipe (docs/events-and-channel.md), followed as a person would: `deno task sim-node
// --peers 1` as a command, its banner read for the addresses and ids, one server per node (the first woken by the
// "demo" context), and the recipe's tool calls in its order — invite, join, sync, write — until node 1's channel tells
// of node 2's write. The simulated node keeps its real-node join time here (about 2 s): it is part of the recipe.

import assert from "assert";
import { z } from "zod";
import { join } from "path";
import {
  callJson,
  callText,
  connect,
  type Connection,
  isolatedEnv,
  ROOT,
  until,
} from "./harness.ts";

/** The recipe's calls, in its order, as the page writes them. */
const RECIPE = ["invite_to_namespace", "join_namespace", "sync_context", "call", "wait_for_events"];

/** Starts `sim-node --peers 1` on free ports and reads its banner. */
async function simNodeCommand() {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-read",
      join(ROOT, "tests/sim_node/main.ts"),
      "--peers",
      "1",
      "--port",
      "0",
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let banner = "";
  while (!banner.includes("Press Ctrl-C")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`sim-node ended before its banner: ${banner}`);
    banner += value;
  }
  const pick = (re: RegExp) => {
    const m = re.exec(banner);
    assert.ok(m, `the banner shows ${re}: ${banner}`);
    return m[1];
  };
  return {
    node1: pick(/listening on (http:\S+)\n/),
    node2: pick(/Peer node 2 listening on (http:\S+)/),
    namespace: pick(/namespace:\s+([0-9a-f]+)/),
    context: pick(/context:\s+(\w+) \(kv-store, alias "demo"\)/),
    banner,
    close: async () => {
      child.kill("SIGINT");
      await child.status;
      await reader.cancel().catch(() => {});
    },
  };
}

Deno.test("the two-nodes recipe works as the page writes it: invite, join, sync, write, and node 1 is told", async () => {
  const page = await Deno.readTextFile(join(ROOT, "docs/events-and-channel.md"));
  const recipe = page.split("## Two nodes by hand")[1] ?? "";
  let at = -1;
  for (const tool of RECIPE) {
    const next = recipe.indexOf(`\`${tool} {`, at + 1);
    assert.ok(next > at, `the recipe shows ${tool} after the step before it`);
    at = next;
  }

  const sim = await simNodeCommand();
  assert.match(sim.banner, /"Two nodes by hand"/, "the banner points at the recipe");
  let one: Connection | null = null;
  let two: Connection | null = null;
  try {
    one = await connect({
      era: "2025-11-25",
      env: await isolatedEnv({ CALIMERO_NODE_URL: sim.node1, CALIMERO_MCP_CHANNEL: "demo" }),
    });
    const told: string[] = [];
    one.client.setNotificationHandler(
      "notifications/claude/channel",
      { params: z.object({ content: z.string(), meta: z.record(z.string(), z.string()) }) },
      (params) => void told.push(params.content),
    );
    two = await connect({
      era: "2026-07-28",
      env: await isolatedEnv({ CALIMERO_NODE_URL: sim.node2 }),
    });

    // 1. On node 1: the invitation, as JSON text.
    const invitation = await callText(one, "invite_to_namespace", { namespace: sim.namespace });
    // 2. On node 2: join with it exactly as it is.
    const joined = await callJson(two, "join_namespace", {
      namespace: sim.namespace,
      invitation,
    });
    assert.ok(
      JSON.stringify(joined).includes(sim.context),
      `the join lists the shared context: ${JSON.stringify(joined)}`,
    );
    // 3. On node 2: sync until the state is here.
    let initialized = false;
    for (let i = 0; i < 50 && !initialized; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      initialized = (await callJson(two, "sync_context", { context: sim.context })).isInitialized;
    }
    assert.ok(initialized, "node 2 has the context's state");
    // 4. On node 2: the write.
    await callText(two, "call", {
      app: "kv-store",
      context: sim.context,
      method: "set",
      args: { key: "hello", value: "from node 2" },
    });
    // 5. On node 1: the channel tells of it, and wait_for_events reads it.
    await until(() => told.length > 0, 5_000, "node 1's channel notification");
    assert.match(told[0], /Inserted/);
    assert.match(told[0], /from node 2/);
    const events = await callJson(one, "wait_for_events", { context: "demo", timeout_s: 5 });
    assert.ok(
      (events.events as { name?: string }[]).some((e) => e.name === "Inserted"),
      JSON.stringify(events),
    );
  } finally {
    await one?.close().catch(() => {});
    await two?.close().catch(() => {});
    await sim.close();
  }
});
