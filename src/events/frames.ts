// One write, one event: a real node announces a peer's write with two StateMutation frames about a millisecond apart
// and with one root, the first without events and the second with the app's (core's delta apply emits one, then
// the applied delta's events emit another). A waiter woken by the first would see "state changed" and not what was
// written, and the channel would count one write twice. A StateMutation without events is therefore held for a
// moment: a frame with events and the same root replaces it; one arriving after it with the same root is a repeat.

/** How long a StateMutation without events waits for its twin with events (the real node's gap is ~1 ms). */
export const TWIN_WAIT_MS = 150;
/** How long a delivered root is remembered, to drop a twin that comes after it. */
const REMEMBER_MS = 2_000;

/** A frame as the hub keeps it. */
export interface Frame {
  contextId: string;
  type: string;
  data: unknown;
  bytes: number;
}

/** Takes the node's frames in order and hands on one per write. */
export interface FrameFolder {
  push(frame: Frame): void;
  /** Hands on whatever is held now (the stream closed, or the hub stops). */
  flush(): void;
}

/** A folder handing frames to `deliver`, holding an eventless StateMutation at most `waitMs`. */
export function createFrameFolder(
  deliver: (frame: Frame) => void,
  waitMs: number = TWIN_WAIT_MS,
): FrameFolder {
  const held = new Map<
    string,
    { frame: Frame; root: string; timer: ReturnType<typeof setTimeout> }
  >();
  const delivered = new Map<string, { root: string; at: number }>();

  const release = (contextId: string) => {
    const kept = held.get(contextId);
    if (!kept) return;
    clearTimeout(kept.timer);
    held.delete(contextId);
    hand(kept.frame, kept.root);
  };
  const hand = (frame: Frame, root: string | null) => {
    if (root !== null) delivered.set(frame.contextId, { root, at: Date.now() });
    if (delivered.size > 1_024) delivered.delete(delivered.keys().next().value!);
    deliver(frame);
  };

  return {
    push(frame) {
      const mutation = frame.type === "StateMutation" ? stateMutation(frame.data) : null;
      if (mutation === null) {
        release(frame.contextId); // order kept: what was held came first
        return hand(frame, null);
      }
      const kept = held.get(frame.contextId);
      if (mutation.events > 0) {
        if (kept?.root === mutation.root) {
          clearTimeout(kept.timer);
          held.delete(frame.contextId);
        } else release(frame.contextId);
        return hand(frame, mutation.root);
      }
      const last = delivered.get(frame.contextId);
      if (last?.root === mutation.root && Date.now() - last.at < REMEMBER_MS) return; // the twin came second
      if (kept?.root === mutation.root) return; // the same empty frame twice
      release(frame.contextId);
      const timer = setTimeout(() => release(frame.contextId), waitMs);
      held.set(frame.contextId, { frame, root: mutation.root, timer });
    },
    flush() {
      for (const contextId of [...held.keys()]) release(contextId);
    },
  };
}

/** A StateMutation's root (as text) and how many app events it carries, or null when it has no root. */
function stateMutation(data: unknown): { root: string; events: number } | null {
  if (data === null || typeof data !== "object") return null;
  const { newRoot, events } = data as Record<string, unknown>;
  if (newRoot === undefined || newRoot === null) return null;
  return {
    root: typeof newRoot === "string" ? newRoot : JSON.stringify(newRoot),
    events: Array.isArray(events) ? events.length : 0,
  };
}
