// The node-home scan: each node directory's `config.toml` gives the node's loopback URL.
// Main thread only: that file holds the node's private key, so nothing here quotes its contents.

import { parse as parseToml } from "smol-toml";
import type { ScannedNode } from "./config.ts";
import { log } from "../lib/log.ts";

const NODE_CONFIG_FILE = "config.toml";

/**
 * Lists the nodes configured under the node home (main thread only): each sub-directory whose `config.toml`
 * listens on loopback in `[server] listen`. A missing home gives []; a broken file is skipped with a warning.
 */
export async function scanNodeHome(nodeHome: string): Promise<ScannedNode[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(nodeHome)) {
      if (entry.isDirectory || entry.isSymlink) names.push(entry.name);
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return [];
    log.warn(
      `Cannot list the node home ${nodeHome}: ${(err as Error).message}. No node is found by name.`,
    );
    return [];
  }
  names.sort();
  const nodes: ScannedNode[] = [];
  for (const name of names) {
    const port = await readNodePort(`${nodeHome}/${name}/${NODE_CONFIG_FILE}`, name);
    if (port !== null) nodes.push({ name, url: `http://localhost:${port}` });
  }
  return nodes;
}

async function readNodePort(file: string, name: string): Promise<number | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
      return null;
    }
    log.warn(`Skipping node "${name}": cannot read ${file}: ${(err as Error).message}.`);
    return null;
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text);
  } catch (err) {
    // The parser's message quotes the file's lines, and this file holds the node's private key: position only.
    const at = err as { line?: number; column?: number };
    log.warn(
      `Skipping node "${name}": ${file} is not valid TOML (line ${at.line ?? "?"}, column ${
        at.column ?? "?"
      }).`,
    );
    return null;
  }
  const server = doc.server as Record<string, unknown> | undefined;
  const listen = server?.listen;
  const addresses = typeof listen === "string" ? [listen] : Array.isArray(listen) ? listen : [];
  const port = loopbackPort(addresses.filter((a): a is string => typeof a === "string"));
  if (port === null) {
    log.warn(`Skipping node "${name}": ${file} has no loopback address in [server] listen.`);
  }
  return port;
}

/**
 * The TCP port of the first loopback listen multiaddr (`/ip4/127.0.0.1/tcp/P`, `/ip6/::1/tcp/P`). A wildcard
 * address (`0.0.0.0`, `::`) also answers on loopback, so it counts when no loopback one is listed.
 */
function loopbackPort(addresses: string[]): number | null {
  const pattern = /^\/ip([46])\/([^/]+)\/tcp\/([0-9]{1,5})(\/|$)/;
  let wildcard: number | null = null;
  for (const address of addresses) {
    const m = pattern.exec(address.trim());
    if (!m) continue;
    const port = Number(m[3]);
    if (port < 1 || port > 65535) continue;
    if (m[2] === "127.0.0.1" || m[2] === "::1") return port;
    if ((m[2] === "0.0.0.0" || m[2] === "::") && wildcard === null) wildcard = port;
  }
  return wildcard;
}
