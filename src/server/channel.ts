// The channel: news of the contexts a person chose, pushed into a Claude Code session as `notifications/claude/channel`
// so that an idle agent hears what others did without sitting in wait_for_events. The person opts in
// (`--channel`: ids, aliases, `selected`), never the model: a channel puts text into the session unasked. The chosen
// contexts are watched and pinned in the event hub; their events are gathered into bursts (src/events/bursts.ts)
// and each burst becomes one notification (channel_text.ts) carrying the cursor that reads it back. Writes this
// server sent itself are not news to it. The shape stays close to the MCP Triggers & Events sketch (a cursor per
// burst, `truncated`-like "missed" marks, payloads as untrusted data) so that a standard push is a thin layer later.

import type { ChannelChoice } from "../config/config.ts";
import { MAX_CHANNEL_CONTEXTS } from "../config/config.ts";
import { type Burst, createBursts, recount } from "../events/bursts.ts";
import type { Entry } from "../events/log.ts";
import { MAX_EVENTS_PER_CONTEXT } from "../events/log.ts";
import { entryMatches, entryNames, viewEntry } from "../apps/event_view.ts";
import { resolveContext } from "../calls/context.ts";
import { isNodeId } from "../primitives/base58.ts";
import type { ChannelStatus, ToolDeps } from "../tools/deps.ts";
import { unitOfWatch } from "../tools/app/watch.ts";
import { createListeners } from "../lib/listeners.ts";
import { log } from "../lib/log.ts";
import { type ChannelNotification, channelNotification, MAX_EXCERPTS } from "./channel_text.ts";

/** How soon a chosen context that could not be watched is tried again, at first and at most. */
const RETRY_FIRST_MS = 2_000;
const RETRY_MAX_MS = 60_000;
/** How long decoding a burst's excerpts may wait for the node (the app a context runs); then they go undecoded. */
const DECODE_WAIT_MS = 1_000;

/** The channel of one process. */
export interface Channel {
  /** Watches the named contexts (once; retried until each is watched). */
  start(): void;
  /** Adds a context select_app bound, when the person chose `selected`. */
  select(contextId: string): void;
  /** Adds a connection's sender; returns the function that removes it. */
  listen(send: (notification: ChannelNotification) => void | Promise<void>): () => void;
  /** What node_status says of it. */
  status(): ChannelStatus;
  close(): void;
}

/** The options of {@link createChannel}. */
export interface ChannelOptions {
  /**
   * Marks, among a due burst's entries, the echoes of writes another process sharing the state directory sent
   * (`mero-mcp watch`: events/shared_writes.ts); returns how many it marked. The server knows its own at once.
   */
  judgeEchoes?(contextId: string, entries: Entry[]): Promise<number>;
  /** The named node its contexts are on, said in each notification; absent for the server's own. */
  node?: string;
}

/** A channel over the tools' event hub, for the contexts `choice` names. */
export function createChannel(
  choice: ChannelChoice,
  tools: ToolDeps,
  options: ChannelOptions = {},
): Channel {
  const hub = tools.events;
  /** Context id → the alias it was named by (null: named by id, or selected). */
  const members = new Map<string, string | null>();
  /** Contexts in the channel because select_app bound them, oldest first. */
  const selected: string[] = [];
  /** Named contexts not watched yet, with why. */
  const waiting = new Map<string, string>();
  const senders = createListeners<[ChannelNotification]>("the channel's notifications");
  let sent = 0;
  let started = false;
  let closed = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let retryMs = RETRY_FIRST_MS;

  // What wait_for_events returns by default is news; sync chatter is not.
  const namesOf = (entry: Entry) => entryMatches(entry, []) ? entryNames(entry) : [];
  const bursts = createBursts({ namesOf, onBurst: (burst) => void tell(burst) });

  const tell = async (told: Burst) => {
    const watch = hub.get(told.contextId);
    if (!watch || !members.has(told.contextId)) return;
    let burst = told;
    if (options.judgeEchoes) {
      const kept = hub.read(watch, burst.after, () => true, MAX_EVENTS_PER_CONTEXT * 2);
      if (await options.judgeEchoes(burst.contextId, kept.entries) > 0 && !kept.lost) {
        burst = recount(burst, kept.entries, namesOf);
        if (burst.count === 0 && burst.gaps === 0) return; // only echoes of writes sent beside us
      }
    }
    const signal = AbortSignal.timeout(DECODE_WAIT_MS);
    const unit = await unitOfWatch(tools, watch, signal);
    // The first few events others caused, as wait_for_events shows them (no gaps, no sync chatter).
    const found = hub.read(
      watch,
      burst.after,
      (e) => !e.own && e.type !== "Gap" && entryMatches(e, []),
      MAX_EXCERPTS,
    );
    const excerpts = found.entries.flatMap((entry) => viewEntry(entry, "", unit?.manifest ?? null));
    const notification = channelNotification({
      burst,
      alias: members.get(burst.contextId) ?? null,
      ...(options.node ? { node: options.node } : {}),
      app: unit?.package ?? null,
      excerpts,
      after: hub.cursors.format(burst.after),
      lost: found.lost, // entries after `after` dropped from the log, whatever the match
    });
    sent++;
    log.debug(`channel: ${burst.count} event(s) of ${burst.contextId} told`);
    await senders.emit(notification);
  };

  const stopEvents = hub.onEvent((contextId, entry) => {
    if (members.has(contextId)) bursts.add(contextId, entry);
  });
  // A chosen context can stop being watched later (a resubscription refused once membership was lost): a named one
  // is looked for again, a selected one leaves the channel until select_app binds it again.
  const stopWatched = hub.onWatchedChange(() => {
    let lostNamed = false;
    for (const [id, alias] of [...members]) {
      if (hub.get(id)) continue;
      leave(id);
      const at = selected.indexOf(id);
      if (at !== -1) selected.splice(at, 1);
      if (alias !== null || choice.contexts.includes(id)) {
        waiting.set(alias ?? id, "no longer watched");
        lostNamed = true;
      }
    }
    if (lostNamed && retry === undefined && !closed) {
      retry = setTimeout(() => void attempt(), retryMs);
    }
  });

  /** Watches and pins one context; why not, when it could not be. */
  const join = async (contextId: string, alias: string | null): Promise<string | null> => {
    if (members.has(contextId)) return null;
    if (members.size >= MAX_CHANNEL_CONTEXTS) {
      return `the channel already follows ${MAX_CHANNEL_CONTEXTS} contexts`;
    }
    const { watch } = await hub.watch(contextId);
    if (watch.state === "refused") return watch.problem ?? "the node will not stream it";
    if (!hub.pin(contextId, true)) return "too many contexts are pinned in the event hub";
    members.set(contextId, alias);
    return null;
  };

  const leave = (contextId: string) => {
    members.delete(contextId);
    hub.pin(contextId, false);
    bursts.forget(contextId);
  };

  /** Tries every named context not yet watched; schedules the next try while any is left. */
  const attempt = async () => {
    retry = undefined;
    const lookup = (name: string) => tools.node.admin.lookupContextAlias(name);
    for (const name of choice.contexts) {
      if ([...members].some(([id, alias]) => id === name || alias === name)) continue;
      try {
        const id = await resolveContext(name, lookup);
        if (id === null || !isNodeId(id)) {
          waiting.set(name, "no context of that id or alias on this node");
          continue;
        }
        const problem = await join(id, id === name ? null : name);
        if (problem === null) waiting.delete(name);
        else waiting.set(name, problem);
      } catch (error) {
        waiting.set(name, (error as Error).message);
      }
    }
    if (closed) return;
    if (waiting.size > 0) {
      for (const [name, why] of waiting) {
        log.warn(`channel: context ${name} is not followed yet: ${why}`);
      }
      retry = setTimeout(() => void attempt(), retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
    } else retryMs = RETRY_FIRST_MS;
  };

  return {
    start() {
      if (started || closed) return;
      started = true;
      void attempt();
    },
    select(contextId) {
      if (!choice.selected || closed || members.has(contextId)) return;
      // Room is made by letting the oldest selected context go; contexts the person named stay.
      if (members.size >= MAX_CHANNEL_CONTEXTS && selected.length > 0) leave(selected.shift()!);
      void join(contextId, null).then((problem) => {
        if (problem === null) selected.push(contextId);
        else log.warn(`channel: context ${contextId} is not followed: ${problem}`);
      });
    },
    listen: senders.subscribe,
    status: () => ({
      contexts: [...members].map(([id, alias]) => alias ?? id),
      waiting: [...waiting].map(([name, why]) => ({ name, why })),
      notifications: sent,
    }),
    close() {
      closed = true;
      clearTimeout(retry);
      stopEvents();
      stopWatched();
      bursts.close();
    },
  };
}
