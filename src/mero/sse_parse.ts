// A text/event-stream parser (the WHATWG "event stream interpretation"), bounded: a frame whose data grows past
// the cap is dropped and reported as oversized rather than held, so a node cannot make us buffer without end.

/** One dispatched server-sent event. */
export interface SseFrame {
  /** The last `id:` seen on this stream (it carries over to later frames, as EventSource keeps it). */
  id: string | null;
  /** The `event:` name, `message` when none was given. */
  event: string;
  data: string;
  /** A `retry:` value in milliseconds that came with this frame, if any. */
  retry: number | null;
}

/** What the parser reports: a frame, or that one was dropped for being larger than the cap. */
export type SseItem = { frame: SseFrame } | { oversized: number };

/** Parses chunks of a stream; `push` returns what became complete. */
export interface SseParser {
  push(text: string): SseItem[];
}

/** Creates a parser that drops any frame whose data exceeds `maxFrameBytes` (counted in characters of the text). */
export function createSseParser(maxFrameBytes: number): SseParser {
  let pending = ""; // an unfinished line
  let skipLf = false; // the previous chunk ended in CR: a leading LF belongs to it
  let lastId: string | null = null;
  let event = "";
  let data: string[] = [];
  let size = 0;
  let retry: number | null = null;
  let oversized = false;
  let discardLine = false; // the rest of a line already cut for length

  const reset = () => {
    event = "";
    data = [];
    size = 0;
    retry = null;
    oversized = false;
  };

  const line = (text: string, out: SseItem[]) => {
    if (text === "") {
      if (oversized) out.push({ oversized: size });
      else if (data.length > 0) {
        out.push({
          frame: { id: lastId, event: event || "message", data: data.join("\n"), retry },
        });
      }
      reset();
      return;
    }
    if (text.startsWith(":")) return; // a comment: the node's keep-alive
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      size += value.length + 1;
      if (size > maxFrameBytes) {
        oversized = true;
        data = [];
      } else if (!oversized) data.push(value);
    } else if (field === "event") event = value;
    else if (field === "id" && !value.includes("\0")) lastId = value;
    else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
  };

  return {
    push(text) {
      const out: SseItem[] = [];
      let start = 0;
      if (skipLf && text.startsWith("\n")) start = 1;
      skipLf = false;
      for (let i = start; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        if (discardLine) discardLine = false;
        else line(pending + text.slice(start, i), out);
        pending = "";
        if (c === 13) {
          if (i + 1 === text.length) skipLf = true;
          else if (text.charCodeAt(i + 1) === 10) i++;
        }
        start = i + 1;
      }
      if (!discardLine) pending += text.slice(start);
      if (pending.length > maxFrameBytes) {
        // One line longer than the cap: forget it, the rest of it, and the frame it belongs to.
        size += pending.length;
        pending = "";
        discardLine = true;
        oversized = true;
        data = [];
      }
      return out;
    },
  };
}
