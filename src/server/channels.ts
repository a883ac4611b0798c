// The channel across nodes: the person names contexts of the server's own node as before, and contexts of a named
// node as `node:context`. Each node gets a channel of its own over that node's services (built when the channel
// starts), saying its node in every notification; the server sees one channel that starts, listens and reports
// over all of them. `selected` follows the server's own node (select_app there).

import type { ChannelChoice } from "../config/config.ts";
import type { ChannelStatus } from "../tools/deps.ts";
import type { ChannelNotification } from "./channel_text.ts";
import type { Channel } from "./channel.ts";
import { log } from "../lib/log.ts";

/** The choice split by node: the server's own (key null) and each named node's. */
export function byNode(choice: ChannelChoice): Map<string | null, ChannelChoice> {
  const split = new Map<string | null, ChannelChoice>([[null, {
    contexts: [],
    selected: choice.selected,
  }]]);
  for (const named of choice.contexts) {
    const colon = named.indexOf(":");
    const node = colon === -1 || named.slice(0, colon) === "default" ? null : named.slice(0, colon);
    const context = colon === -1 ? named : named.slice(colon + 1);
    const part = split.get(node) ?? { contexts: [], selected: false };
    part.contexts.push(context);
    split.set(node, part);
  }
  return split;
}

/** A channel on a named node, built when it starts (that node's services are made on first use). */
export function deferredChannel(node: string, make: () => Promise<Channel | null>): Channel {
  let made: Channel | null = null;
  let problem: string | null = null;
  let started = false;
  const senders = new Set<(n: ChannelNotification) => void | Promise<void>>();
  const detach = new Map<(n: ChannelNotification) => void | Promise<void>, () => void>();
  return {
    start() {
      if (started) return;
      started = true;
      make().then((channel) => {
        if (channel === null) {
          problem = `no node is named "${node}" (CALIMERO_NODES, or a folder under the node home)`;
          log.warn(`channel: ${problem}`);
          return;
        }
        made = channel;
        for (const send of senders) detach.set(send, channel.listen(send));
        channel.start();
      }, (error) => {
        problem = (error as Error).message;
        log.warn(`channel: node "${node}": ${problem}`);
      });
    },
    select() {},
    listen(send) {
      senders.add(send);
      if (made) detach.set(send, made.listen(send));
      return () => {
        senders.delete(send);
        detach.get(send)?.();
        detach.delete(send);
      };
    },
    status(): ChannelStatus {
      if (made) {
        const inner = made.status();
        return {
          contexts: inner.contexts.map((c) => `${node}:${c}`),
          waiting: inner.waiting.map((w) => ({ name: `${node}:${w.name}`, why: w.why })),
          notifications: inner.notifications,
        };
      }
      return {
        contexts: [],
        waiting: [{ name: `${node}:*`, why: problem ?? "not started" }],
        notifications: 0,
      };
    },
    close() {
      made?.close();
    },
  };
}

/** Several channels as one: the server's own first (it takes `select`). */
export function combined(channels: Channel[]): Channel {
  const [own] = channels;
  return {
    start: () => channels.forEach((c) => c.start()),
    select: (contextId) => own.select(contextId),
    listen(send) {
      const stops = channels.map((c) => c.listen(send));
      return () => stops.forEach((stop) => stop());
    },
    status(): ChannelStatus {
      const all = channels.map((c) => c.status());
      return {
        contexts: all.flatMap((s) => s.contexts),
        waiting: all.flatMap((s) => s.waiting),
        notifications: all.reduce((n, s) => n + s.notifications, 0),
      };
    },
    close: () => channels.forEach((c) => c.close()),
  };
}
