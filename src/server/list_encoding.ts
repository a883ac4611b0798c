// tools/list answers encoded from cached bytes (performance issue, B3): a list of thousands of tools is the same
// entries every time, so each entry is serialized and UTF-8-encoded once and the answer is their concatenation.

import { type JSONRPCMessage, serializeMessage } from "@modelcontextprotocol/server";

const encoder = new TextEncoder();

/** The listed entries the surface built (objects the SDK passes through unchanged for 2026-era clients). */
const originals = new WeakSet<object>();
/** Encoded entries, by entry object. */
const byEntry = new WeakMap<object, Uint8Array>();
/**
 * Encoded 2025-era copies, by the inputSchema they share with their original: for those clients the SDK copies an
 * entry whose output schema is not an object (`{...entry, outputSchema: wrapped}`) on every list, and the copy is
 * a pure function of the (immutable) original.
 */
const byWrappedInput = new WeakMap<object, { name: unknown; bytes: Uint8Array }>();

/** Records `entry` as one the surface listed (call once per entry it builds). */
export function registerListed(entry: object): void {
  originals.add(entry);
}

/** The message as one UTF-8 line; a tools/list answer is assembled from cached entries. */
export function encodeMessage(message: JSONRPCMessage): Uint8Array {
  const tools = listedTools(message);
  if (!tools) return encoder.encode(serializeMessage(message));
  const marker = `mero-mcp-tools-${crypto.randomUUID()}`;
  const result = (message as { result: Record<string, unknown> }).result;
  const line = serializeMessage(
    { ...message, result: { ...result, tools: marker } } as JSONRPCMessage,
  );
  const at = line.indexOf(`"${marker}"`);
  const head = encoder.encode(`${line.slice(0, at)}[`);
  const tail = encoder.encode(`]${line.slice(at + marker.length + 2)}`);
  const joined = joinedEntries(tools);
  const bytes = new Uint8Array(head.length + joined.length + tail.length);
  bytes.set(head, 0);
  bytes.set(joined, head.length);
  bytes.set(tail, head.length + joined.length);
  return bytes;
}

/** The last list's entries and their bytes joined with commas: a list is the same entries until the tools change. */
let lastJoined: { entries: unknown[]; bytes: Uint8Array } | null = null;

/**
 * The entries' bytes joined with commas, reused while the list holds the very same entry objects (the SDK may hand
 * over a new array of them per request, so the entries are compared, not the array). Copying 5,000 cached entries
 * one by one took 14 ms of every 200-app list; the joined copy is one.
 */
function joinedEntries(tools: unknown[]): Uint8Array {
  const last = lastJoined;
  if (
    last && last.entries.length === tools.length && tools.every((t, i) => t === last.entries[i])
  ) {
    return last.bytes;
  }
  const parts = tools.map(entryBytes);
  let size = Math.max(0, parts.length - 1);
  for (const part of parts) size += part.length;
  const bytes = new Uint8Array(size);
  let offset = 0;
  parts.forEach((part, i) => {
    if (i > 0) bytes[offset++] = 0x2c; // ","
    bytes.set(part, offset);
    offset += part.length;
  });
  // Entries that are objects can be compared by identity; a list with other values is not kept.
  if (tools.every((t) => t !== null && typeof t === "object")) {
    lastJoined = { entries: [...tools], bytes };
  }
  return bytes;
}

function listedTools(message: JSONRPCMessage): unknown[] | null {
  if (!("result" in message) || message.result === null || typeof message.result !== "object") {
    return null;
  }
  const tools = (message.result as { tools?: unknown }).tools;
  return Array.isArray(tools) && tools.length > 0 ? tools : null;
}

function entryBytes(entry: unknown): Uint8Array {
  if (entry === null || typeof entry !== "object") return encoder.encode(JSON.stringify(entry));
  const cached = byEntry.get(entry);
  if (cached) return cached;
  const { name, inputSchema } = entry as { name?: unknown; inputSchema?: unknown };
  const copyOf = !originals.has(entry) && inputSchema !== null && typeof inputSchema === "object"
    ? inputSchema
    : null;
  if (copyOf) {
    const wrapped = byWrappedInput.get(copyOf);
    if (wrapped && wrapped.name === name) return wrapped.bytes;
  }
  const bytes = encoder.encode(JSON.stringify(entry));
  if (copyOf) byWrappedInput.set(copyOf, { name, bytes });
  else if (originals.has(entry)) byEntry.set(entry, bytes);
  return bytes;
}
