// A context's events in the form agents read: an app event's payload decoded with the app's ABI (64-bit integers
// as strings, bytes as hex, as in method results), node events named plainly, and gaps said in words. The node
// sends an app event as its name (`kind`, the event enum's variant) and the JSON bytes of its payload
// (calimero-sdk `emit!`, crates/sdk/macros/src/event.rs); the ABI's `events` give each name its payload type.

import type { AbiManifest } from "./abi_format.ts";
import { fromWireValue } from "./values.ts";
import type { Entry } from "../events/log.ts";
import { parseJson } from "../lib/json.ts";

/** One event as a result shows it. */
export type EventItem = Record<string, unknown> & { cursor: string; type: string };

/** The node's context event types, by the name results give them. */
const TYPE_NAMES: Record<string, string> = {
  StateMutation: "state_changed",
  AppVersionChanged: "app_version_changed",
  SyncStatus: "sync_status",
  XCall: "xcall",
  Gap: "gap",
};

/**
 * The names among `names` that no entry can carry: neither an event the app's ABI declares nor a node event type.
 * A wait on such a name would only time out.
 */
export function unknownEventNames(names: readonly string[], manifest: AbiManifest): string[] {
  const known = new Set([...Object.values(TYPE_NAMES), ...manifest.events.map((e) => e.name)]);
  return names.filter((name) => !known.has(name));
}

/** The names an event filter may use besides the app's own events. */
export const NODE_EVENT_NAMES: readonly string[] = Object.values(TYPE_NAMES);

/** What filtering by names means for one entry: the names it carries (app events, or its type). */
export function entryNames(entry: Entry): string[] {
  if (entry.type === "StateMutation") {
    const events = appEvents(entry.data);
    return events.length ? events.map((e) => e.kind) : ["state_changed"];
  }
  return [TYPE_NAMES[entry.type] ?? entry.type];
}

/**
 * Whether an entry is returned for `names` (an empty filter: everything but sync_status, which a syncing node
 * sends often). Gaps always are: they say what may be missing.
 */
export function entryMatches(entry: Entry, names: readonly string[]): boolean {
  if (entry.type === "Gap") return true;
  const carried = entryNames(entry);
  if (names.length === 0) return !carried.includes("sync_status");
  return carried.some((n) => names.includes(n));
}

/** The items one entry becomes, keeping only the app events `names` asks for (all with an empty filter). */
export function viewEntry(
  entry: Entry,
  cursor: string,
  manifest: AbiManifest | null,
  names: readonly string[] = [],
): EventItem[] {
  const at = new Date(entry.at).toISOString();
  const base = { cursor, at };
  if (entry.type === "Gap") {
    return [{ ...base, type: "gap", note: entry.gap ?? "events may be missing here" }];
  }
  if (entry.oversized) {
    return [{
      ...base,
      type: TYPE_NAMES[entry.type] ?? entry.type,
      note:
        `this event's data was ${entry.bytes} bytes, more than mero-mcp keeps (64 KiB); read the state instead`,
    }];
  }
  const data = (entry.data ?? {}) as Record<string, unknown>;
  switch (entry.type) {
    case "StateMutation": {
      const stateRoot = typeof data.newRoot === "string" ? data.newRoot : null;
      const events = appEvents(entry.data);
      if (events.length === 0) return [{ ...base, type: "state_changed", stateRoot }];
      return events
        .filter((e) => names.length === 0 || names.includes(e.kind))
        .map((e) => ({ ...base, type: "app_event", ...decodeAppEvent(manifest, e), stateRoot }));
    }
    case "AppVersionChanged":
      return [{
        ...base,
        type: "app_version_changed",
        fromVersion: data.fromVersion ?? null,
        toVersion: data.toVersion ?? null,
        note:
          "The context now runs another application: app_handles issued before are stale. Call select_app again.",
      }];
    case "SyncStatus":
      return [{ ...base, type: "sync_status", ...plainObject(data) }];
    case "XCall":
      return [{ ...base, type: "xcall", ...plainObject(data) }];
    default:
      return [{ ...base, type: entry.type, data: fromWireValue(null, undefined, entry.data) }];
  }
}

/** A node `ExecutionEvent`: `{kind, data: [bytes], handler}` (crates/primitives/src/events.rs). */
interface AppEvent {
  kind: string;
  data: unknown;
  handler: unknown;
}

function appEvents(data: unknown): AppEvent[] {
  const events = (data as { events?: unknown } | null)?.events;
  if (!Array.isArray(events)) return [];
  return events.filter((e): e is AppEvent =>
    e !== null && typeof e === "object" && typeof (e as AppEvent).kind === "string"
  );
}

/** An app event's name, decoded payload and handler. */
function decodeAppEvent(manifest: AbiManifest | null, event: AppEvent): Record<string, unknown> {
  const out: Record<string, unknown> = { name: event.kind };
  if (typeof event.handler === "string") out.handler = event.handler;
  const bytes = Array.isArray(event.data) &&
      event.data.every((b) => typeof b === "number" && Number.isInteger(b) && b >= 0 && b <= 255)
    ? new Uint8Array(event.data as number[])
    : null;
  if (bytes === null) {
    out.note = "the node sent this event's data in an unexpected form";
    return out;
  }
  if (bytes.length === 0) return out; // a unit variant: no payload
  let value: unknown;
  try {
    value = parseJson(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    out.dataHex = bytes.toHex();
    out.note = "this event's data is not JSON; shown as hex";
    return out;
  }
  const declared = manifest?.events.find((e) => e.name === event.kind);
  if (manifest && !declared) out.note = "the app's ABI does not declare this event";
  out.payload = fromWireValue(manifest, declared?.payload, value);
  return out;
}

function plainObject(data: Record<string, unknown>): Record<string, unknown> {
  return fromWireValue(null, undefined, data) as Record<string, unknown>;
}
