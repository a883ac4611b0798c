// The seam parts publish changes through: a part owns a list of listeners and emits to it; the composition root
// (src/server/runtime.ts) subscribes. No part calls back into a layer above it.

import { log } from "./log.ts";

/** Listeners for one kind of change, with arguments `A`. */
export interface Listeners<A extends unknown[]> {
  /** Adds a listener; returns a function that removes it. */
  subscribe(listener: (...args: A) => void | Promise<void>): () => void;
  /**
   * Calls every listener in the order they subscribed (each one's synchronous part runs before this returns), and
   * resolves when all have settled. A listener that throws is logged, never passed on to the part that emitted.
   */
  emit(...args: A): Promise<void>;
}

/** An empty list of listeners; `what` names the change in the log line of a listener that fails. */
export function createListeners<A extends unknown[]>(what: string): Listeners<A> {
  const listeners = new Set<(...args: A) => void | Promise<void>>();
  const failed = (error: unknown) =>
    log.error(`a listener of ${what} failed: ${(error as Error)?.stack ?? error}`);
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async emit(...args) {
      const running: Promise<void>[] = [];
      for (const listener of [...listeners]) {
        try {
          const result = listener(...args);
          if (result instanceof Promise) running.push(result.catch(failed));
        } catch (error) {
          failed(error);
        }
      }
      await Promise.all(running);
    },
  };
}
