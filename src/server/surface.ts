// The surface: what every server instance lists (tools, guide resources, prompts, `notAnswering`), process-wide.
// A change replaces it in one synchronous step and notifies each live connection once per list that changed.

import type { Tool } from "../tools/tool.ts";
import type { Icon } from "../apps/icon.ts";
import { listEntry } from "../tools/tool.ts";
import { registerListed } from "./list_encoding.ts";
import { escapeStrings } from "../answer/result.ts";
import { escapeHidden } from "../lib/text.ts";
import type { ServedPrompt } from "./prompts.ts";

/** A guide served as a resource. */
export interface GuideResource {
  uri: string;
  name: string;
  title: string;
  text: string;
  icons?: Icon[];
  /** Default text/markdown (a guide); a script client is TypeScript. */
  mimeType?: string;
}

/** A live connection that wants list-changed notifications. */
export interface Listener {
  toolsChanged(): void;
  resourcesChanged(): void;
  /** The prompts changed (apps with procedures came, went or changed their guide). */
  promptsChanged?(): void;
  /** A resource's content changed (a watched context's events). */
  resourceUpdated?(uri: string): void;
}

/** The tools, guides and `notAnswering` entries of one moment, with the listed form precomputed. */
export interface Snapshot {
  tools: ReadonlyMap<string, Tool>;
  /** `tools/list` entries, computed once per change (not per request). */
  listed: Record<string, unknown>[];
  guides: ReadonlyMap<string, GuideResource>;
  prompts: ReadonlyMap<string, ServedPrompt>;
  notAnswering: string[];
}

/** Process-wide holder of the current {@link Snapshot}. */
export interface Surface {
  current(): Snapshot;
  /** Replaces tools, guides, prompts and/or notAnswering; notifies only for the lists that changed. */
  update(
    next: {
      tools?: Tool[];
      guides?: GuideResource[];
      prompts?: ServedPrompt[];
      notAnswering?: string[];
    },
  ): void;
  /** Adds a listener; returns a function that removes it. */
  listen(listener: Listener): () => void;
  /** Tells every connection that a resource's content changed. */
  resourceUpdated(uri: string): void;
  /** Tells every connection that the resource list changed for a reason besides guides (a context watched). */
  resourcesChanged(): void;
}

/** Creates an empty surface. */
export function createSurface(): Surface {
  let snapshot = build([], [], [], []);
  const listeners = new Set<Listener>();
  return {
    current: () => snapshot,
    update(next) {
      const tools = next.tools ?? [...snapshot.tools.values()];
      const guides = next.guides ?? [...snapshot.guides.values()];
      const prompts = next.prompts ?? [...snapshot.prompts.values()];
      const notAnswering = next.notAnswering ?? snapshot.notAnswering;
      const before = snapshot;
      snapshot = build(tools, guides, prompts, notAnswering);
      const toolsChanged = !sameTools(before.tools, snapshot.tools);
      const guidesChanged = !sameGuides(before.guides, snapshot.guides);
      const promptsChanged = !samePrompts(before.prompts, snapshot.prompts);
      for (const listener of listeners) {
        if (toolsChanged) listener.toolsChanged();
        if (guidesChanged) listener.resourcesChanged();
        if (promptsChanged) listener.promptsChanged?.();
      }
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    resourceUpdated(uri) {
      for (const listener of listeners) listener.resourceUpdated?.(uri);
    },
    resourcesChanged() {
      for (const listener of listeners) listener.resourcesChanged();
    },
  };
}

/** The listed form of each tool, computed once per tool object (tools are reused across changes). */
const entries = new WeakMap<Tool, Record<string, unknown>>();

function entryOf(tool: Tool): Record<string, unknown> {
  let entry = entries.get(tool);
  if (!entry) {
    // An ABI's docs and an app's names reach the model through the list too: escaped like every result.
    entries.set(tool, entry = escapeStrings(listEntry(tool)) as Record<string, unknown>);
    registerListed(entry);
  }
  return entry;
}

/** Same names, in the same order, each the same tool object: nothing a client would see has changed. */
function sameTools(a: ReadonlyMap<string, Tool>, b: ReadonlyMap<string, Tool>): boolean {
  if (a.size !== b.size) return false;
  const left = [...a];
  let i = 0;
  for (const [name, tool] of b) {
    const [otherName, other] = left[i++];
    if (name !== otherName || tool !== other) return false;
  }
  return true;
}

function build(
  tools: Tool[],
  guides: GuideResource[],
  prompts: ServedPrompt[],
  notAnswering: string[],
): Snapshot {
  return {
    tools: new Map(tools.map((t) => [t.name, t])),
    listed: tools.map(entryOf),
    guides: new Map(guides.map((g) => [g.uri, g])),
    prompts: new Map(prompts.map((p) => [p.name, p])),
    notAnswering: notAnswering.map(escapeHidden),
  };
}

function sameGuides(
  a: ReadonlyMap<string, GuideResource>,
  b: ReadonlyMap<string, GuideResource>,
): boolean {
  if (a.size !== b.size) return false;
  for (const [uri, guide] of a) {
    const other = b.get(uri);
    if (!other || other.text !== guide.text || other.name !== guide.name) return false;
    if (other.icons?.[0]?.src !== guide.icons?.[0]?.src) return false;
  }
  return true;
}

/** Same prompt names in the same order, each depending on the same guide text. */
function samePrompts(
  a: ReadonlyMap<string, ServedPrompt>,
  b: ReadonlyMap<string, ServedPrompt>,
): boolean {
  if (a.size !== b.size) return false;
  const left = [...a.values()];
  let i = 0;
  for (const prompt of b.values()) if (prompt.key !== left[i++].key) return false;
  return true;
}
