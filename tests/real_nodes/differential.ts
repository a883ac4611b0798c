// One scenario of raw node requests, run the same way against two simulated nodes and against two real merods, so
// the simulated node can be held to the real one: what each step answered (status and the keys of its answer), and
// the event frames a peer's write makes. `observe` records; the differential test compares the records.

import {
  createMeroClient,
  type MeroClient,
  NodeHttpError,
  type StreamItem,
} from "../../src/mero/mod.ts";

/** What one step answered, in a form two nodes can be compared by. */
export interface Observation {
  step: string;
  /** The HTTP status (200 for a success). */
  status: number;
  /** What the answer held that callers read: its keys, a unit, a role, a duration, a frame sequence. */
  seen: string;
}

/** The app both nodes run: a .wasm installed on each (real nodes), or an installed app's id (simulated). */
export type AppUnderTest = { wasm: string } | { id: string };

/** How long to wait for the second node to hold the context's state. */
const SYNC_MS = 60_000;

/** Runs the scenario on two fresh nodes (neither in any namespace yet) and returns what each step answered. */
export async function observe(urls: [string, string], app: AppUnderTest): Promise<Observation[]> {
  const [one, two] = urls.map((baseUrl) => createMeroClient({ baseUrl, timeoutMs: 70_000 }));
  const out: Observation[] = [];
  const step = async <T>(name: string, run: () => Promise<T>, seen: (value: T) => string) => {
    try {
      const value = await run();
      out.push({ step: name, status: 200, seen: seen(value) });
      return value;
    } catch (error) {
      if (!(error instanceof NodeHttpError)) throw error;
      out.push({ step: name, status: error.status, seen: error.status === 500 ? "bare 500" : "" });
      return null;
    }
  };
  const keys = (value: unknown) =>
    value !== null && typeof value === "object"
      ? Object.keys(value).sort().join(",")
      : String(value);

  await step("identity before any namespace", () => two.admin.identity(), keys);
  let appId = "id" in app ? app.id : "";
  if ("wasm" in app) {
    for (const node of [one, two]) {
      appId = (await node.admin.installDevApplication({ path: app.wasm })).applicationId;
    }
  }
  const ns = (await step(
    "create namespace",
    () => one.admin.createNamespace({ applicationId: appId }),
    keys,
  ))!.namespaceId;
  const created = (await step(
    "create context in it",
    () =>
      one.admin.createContext({
        applicationId: appId,
        groupId: ns,
        initializationParams: [...new TextEncoder().encode("{}")],
      }),
    keys,
  ))!;
  const context = created.contextId;
  const invite = (await step("invite", () => one.admin.inviteToNamespace(ns), (answer) => {
    const signed = answer.invitation as Record<string, unknown>;
    const inner = signed.invitation as Record<string, unknown>;
    const expiry = Number(inner.expiration_timestamp);
    return `${keys(signed)}; expiry in ${expiry < 1e11 ? "seconds" : "nanoseconds"}`;
  }))!;
  const started = Date.now();
  const joined = (await step(
    "join namespace",
    () => two.admin.joinNamespace(ns, invite),
    () => (Date.now() - started >= 1_500 ? "after about 2 s" : "at once"),
  ))!;
  await step("identity after joining", () => two.admin.identity(), keys);
  await step(
    "a new member's capabilities",
    () => one.admin.getMemberCapabilities(ns, joined.memberAccount),
    (bits) => String(bits),
  );

  // The second node follows the context by itself, then syncs its state.
  await until(
    SYNC_MS,
    async () => (await two.admin.listContexts()).contexts.some((c) => c.id === context),
  );
  await until(SYNC_MS, async () => {
    await two.admin.syncContext(context).catch(() => {});
    const result = await two.rpc.execute({ contextId: context, method: "len", argsJson: {} })
      .then(() => true, () => false);
    return result;
  });

  // A peer's write, as the first node's event stream tells it.
  const frames = await framesOf(
    one,
    context,
    () =>
      two.rpc.execute({ contextId: context, method: "set", argsJson: { key: "k", value: "v" } }),
  );
  out.push({ step: "a peer's write, on the other node's stream", status: 200, seen: frames });

  await step(
    "a member adds a member",
    () => two.admin.addGroupMembers(ns, [{ identity: "cd".repeat(32), role: "Member" }]),
    () => "added",
  );
  await step("a member deletes the group's context", () => two.admin.deleteContext(context), keys);
  await step("the owner leaves its namespace", () => one.admin.leaveNamespace(ns), () => "left");
  const expired = await one.admin.inviteToNamespace(ns, undefined, { validForSeconds: 1 });
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  await step("a join with an expired invitation", () => two.admin.joinNamespace(ns, expired), keys);
  return out;
}

/** Polls `ready` every half second until it holds, for at most `ms`. */
async function until(ms: number, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!await ready().catch(() => false)) {
    if (Date.now() > deadline) throw new Error(`not ready within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * The StateMutation frames the node's stream carries for the context while `write` runs and a second after, as
 * "StateMutation(events: n, root k)" with roots numbered in order of appearance. SyncStatus frames are left out: a
 * real node sends them on each sync round, whenever that falls.
 */
async function framesOf(
  node: MeroClient,
  context: string,
  write: () => Promise<unknown>,
): Promise<string> {
  const stop = new AbortController();
  const items: StreamItem[] = [];
  const stream = await node.events.open({ signal: stop.signal });
  const reading = (async () => {
    for await (const item of stream) {
      items.push(item);
      if (item.kind === "connect") await node.events.subscribe(item.sessionId, [context]);
    }
  })().catch(() => {});
  await until(10_000, () => Promise.resolve(items.some((i) => i.kind === "connect")));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const before = items.length;
  await write();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  stop.abort();
  await reading;
  const roots: string[] = [];
  const mutations: string[] = [];
  for (const item of items.slice(before)) {
    if (item.kind !== "event") continue;
    const event = item.event as { type?: string; data?: { newRoot?: unknown; events?: unknown[] } };
    if (event.type !== "StateMutation") continue;
    const root = JSON.stringify(event.data?.newRoot);
    if (!roots.includes(root)) roots.push(root);
    mutations.push(
      `StateMutation(events: ${event.data?.events?.length ?? 0}, root ${roots.indexOf(root) + 1})`,
    );
  }
  return mutations.join(" ");
}
