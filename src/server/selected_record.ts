// What agents selected, kept where a `mero-mcp watch selected` beside the server can read it: the contexts select_app
// bound, newest last, in `<state dir>/selected.json`. The server writes it (atomically, owner-only); the watch reads
// it at start and again each time the file changes. Only ids are kept: a context id names nothing secret.

import { join } from "node:path";
import { isNodeId } from "../primitives/base58.ts";
import { MAX_CHANNEL_CONTEXTS } from "../config/config.ts";
import { log } from "../lib/log.ts";

/** The file's name in the state directory. */
export const SELECTED_FILE = "selected.json";

/** Records each context select_app binds (the last MAX_CHANNEL_CONTEXTS), one write at a time. */
export function selectedRecorder(stateDir: string): (contextId: string) => void {
  const file = join(stateDir, SELECTED_FILE);
  let contexts: string[] | null = null;
  let queue: Promise<void> = Promise.resolve();
  return (contextId) => {
    queue = queue.then(async () => {
      contexts ??= await readSelected(stateDir);
      const next = [...contexts.filter((id) => id !== contextId), contextId]
        .slice(-MAX_CHANNEL_CONTEXTS);
      if (next.join() === contexts.join()) return;
      contexts = next;
      const temp = `${file}.tmp-${crypto.randomUUID()}`;
      await Deno.writeTextFile(temp, JSON.stringify({ contexts }) + "\n", { mode: 0o600 });
      await Deno.rename(temp, file);
    }).catch((error) => log.debug(`selected contexts not recorded: ${error}`));
  };
}

/** The recorded contexts, oldest first; none when the file is missing or not what this module writes. */
export async function readSelected(stateDir: string): Promise<string[]> {
  try {
    const text = await Deno.readTextFile(join(stateDir, SELECTED_FILE));
    if (text.length > 64 * 1024) return [];
    const contexts = (JSON.parse(text) as { contexts?: unknown }).contexts;
    return Array.isArray(contexts)
      ? contexts.filter((id): id is string => typeof id === "string" && isNodeId(id))
        .slice(-MAX_CHANNEL_CONTEXTS)
      : [];
  } catch {
    return [];
  }
}
