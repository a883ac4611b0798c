// `mero-mcp watch`: the channel's news as lines on stdout, for hosts that turn a background command's lines into
// notifications (Claude Code's Monitor tool and a plugin's `monitors`), which need neither a login nor the channels
// preview. One line per burst, by the channel's own pacing and words (channel.ts, channel_text.ts); one line when the
// node stops answering and one when it is back. It follows the contexts the person named, or with `selected` those
// agents select (the server records them in the state directory: selected_record.ts), and takes the writes of a
// server sharing its state directory for that server's own (events/shared_writes.ts). While quiet it asks the node
// nothing: the event stream is open, and the catalog is read only when a burst needs an app's ABI.

import { join } from "node:path";
import type { Runtime } from "./runtime.ts";
import { watchLine } from "./channel_text.ts";
import { readSelected, SELECTED_FILE } from "./selected_record.ts";
import { log } from "../lib/log.ts";

/** Where a watch's lines go: resolves false once they cannot be written (the reader went away). */
export type LineWriter = (line: string) => Promise<boolean>;

/** Runs the watch until its lines cannot be written; `stop` ends it too. */
export async function runWatch(
  runtime: Runtime,
  write: LineWriter,
  stop: AbortSignal = new AbortController().signal,
): Promise<void> {
  const channel = runtime.channel;
  const choice = runtime.config.channel;
  if (channel === null || choice === null) return;
  const ended = Promise.withResolvers<void>();
  let queue: Promise<void> = Promise.resolve();
  /** Writes one line after the ones before it; the first failure ends the watch. */
  const say = (line: string) => {
    queue = queue.then(async () => {
      if (!await write(line)) ended.resolve();
    });
  };

  const stopListening = channel.listen((notification) => say(watchLine(notification)));
  // The node's stream: one line when it fails, one when it is back (events in between are told as a possible gap).
  let down: string | null = null;
  const url = (await runtime.session.connection().catch(() => null))?.url ?? "the node";
  const stopConnection = runtime.events.onConnection((problem) => {
    if (problem !== null && down === null) {
      down = problem;
      say(
        `Calimero: the node at ${url} stopped answering (${
          problem.slice(0, 200)
        }); following again when it is back.`,
      );
    } else if (problem === null && down !== null) {
      down = null;
      say(
        `Calimero: the node at ${url} answers again; what happened meanwhile is told as possibly missed.`,
      );
    }
  });
  channel.start();
  const named = choice.contexts.length > 0 ? choice.contexts.join(", ") : "";
  log.info(
    `watch: following ${
      [named, choice.selected ? "the contexts agents select" : ""].filter(Boolean).join(" and ")
    } on ${url}; one line per burst of news.`,
  );

  const following = choice.selected ? followSelected(runtime, stop) : null;
  stop.addEventListener("abort", () => ended.resolve(), { once: true });
  await ended.promise;
  following?.close();
  stopListening();
  stopConnection();
}

/** Follows the contexts recorded as selected, now and whenever the record changes (no polling: a file watch). */
function followSelected(runtime: Runtime, stop: AbortSignal): { close(): void } {
  const { stateDir } = runtime.config;
  const select = async () => {
    for (const id of await readSelected(stateDir)) runtime.channel?.select(id);
  };
  void select();
  let watcher: Deno.FsWatcher | null = null;
  try {
    watcher = Deno.watchFs(stateDir, { recursive: false });
  } catch (error) {
    log.warn(`watch: the selected contexts are read once only: ${(error as Error).message}`);
  }
  if (watcher !== null) {
    const fs = watcher;
    void (async () => {
      try {
        for await (const event of fs) {
          if (stop.aborted) break;
          if (event.paths.some((path) => path === join(stateDir, SELECTED_FILE))) await select();
        }
      } catch { /* closed */ }
    })();
  }
  return { close: () => watcher?.close() };
}
