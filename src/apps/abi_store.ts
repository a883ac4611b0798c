// Validated ABIs kept on disk in the state dir, so an ABI read once need not be read again after a restart. Two
// kinds: an ABI read from bytecode whose blob id mero-mcp computed itself is *verified*, true of that blob id on any
// node, and kept by content alone; an ABI a node's route answered is *claimed* (the blob id and the document are what
// the node says), kept per node (its address and identity), and asked of the node again after each restart (see
// abi.ts). What is read back is untrusted like any answer: it is parsed and validated again with the same bounds,
// and a file that fails is removed.

import { join } from "path";
import { parseJson } from "../lib/json.ts";
import { writeAll } from "../lib/fs.ts";
import { log } from "../lib/log.ts";

/** The largest ABI file read back (the node's answers are capped at 16 MiB; real ABIs are tens of KB). */
export const MAX_STORED_ABI_BYTES = 4 * 1024 * 1024;
/** The most ABI files kept: past it, new ones are not written (the set follows installs, a handful per app). */
export const MAX_STORED_ABIS = 2_000;

/** Whose word an ABI is: verified from bytes (any node's), or claimed by the node it came from. */
export type AbiOrigin = "verified" | "claimed";

/** Raw ABI documents by unit key (bytecode blob id and service) and origin. */
export interface AbiStore {
  /** The stored document, or null when there is none (or it cannot be read). */
  read(key: string, origin: AbiOrigin): Promise<unknown | null>;
  /** Keeps `document` for `key`; never throws (a cache that cannot write is only slower). */
  write(key: string, document: unknown, origin: AbiOrigin): Promise<void>;
  /** Forgets `key` (its file failed validation). */
  remove(key: string, origin: AbiOrigin): Promise<void>;
}

/** The file name of a unit key: `abi-<32 hex>.json` (hashed, so no id can name a path). */
export async function abiFileName(key: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)),
  );
  return `abi-${digest.subarray(0, 16).toHex()}.json`;
}

/**
 * A store in `dir` (the state dir, owner-only) for the node `scope` names (resolved when the first file is read or
 * written; see {@link nodeScope}).
 */
export function createAbiStore(dir: string, scope: () => Promise<string>): AbiStore {
  const fileOf = async (key: string, origin: AbiOrigin) =>
    join(
      dir,
      await abiFileName(origin === "verified" ? `verified\n${key}` : `${await scope()}\n${key}`),
    );
  let count: number | null = null;
  const countFiles = async () => {
    if (count !== null) return count;
    let n = 0;
    try {
      for await (const entry of Deno.readDir(dir)) if (entry.name.startsWith("abi-")) n++;
    } catch {
      // An unreadable dir leaves the count at what was seen.
    }
    return count = n;
  };
  return {
    async read(key, origin) {
      try {
        const path = await fileOf(key, origin);
        const info = await Deno.lstat(path);
        if (!info.isFile || info.size > MAX_STORED_ABI_BYTES) return null;
        return parseJson(await Deno.readTextFile(path));
      } catch {
        return null;
      }
    },
    async write(key, document, origin) {
      let text: string;
      try {
        text = JSON.stringify(document);
      } catch {
        return; // not plain JSON (a 64-bit number read losslessly): left to the network
      }
      if (text === undefined || text.length > MAX_STORED_ABI_BYTES) return;
      if (await countFiles() >= MAX_STORED_ABIS) return;
      let path: string;
      try {
        path = await fileOf(key, origin);
      } catch {
        return; // the node is not known (yet): nothing is kept
      }
      const temp = `${path}.tmp-${crypto.randomUUID()}`;
      try {
        const file = await Deno.open(temp, { write: true, createNew: true, mode: 0o600 });
        try {
          await writeAll(file, new TextEncoder().encode(text));
        } finally {
          file.close();
        }
        await Deno.rename(temp, path);
        count = (count ?? 0) + 1;
      } catch (error) {
        log.debug(`ABI not kept on disk: ${error}`);
        await Deno.remove(temp).catch(() => {});
      }
    },
    async remove(key, origin) {
      await fileOf(key, origin).then((path) => Deno.remove(path)).catch(() => {});
    },
  };
}

/** What names one node for the store: its address, and its identity's public key when it has one. */
export function nodeScope(url: string, publicKey: string | null): string {
  return `${url}\n${publicKey ?? ""}`;
}
