// Bench-only: wraps the worker's fetch to time every node request the server makes (call → body read).
// Timings go to stderr as `[bench-fetch] [...]` lines, written only after the server has been idle for a
// moment, so reporting never lands inside a measured call. timed_worker.ts imports it before the server.
// deno-lint-ignore-file no-console -- the timer reports on stderr, like the server's own log.

/** One node request: method and path, start and end on this worker's `performance.now()` clock. */
export type FetchTiming = [string, number, number];

const IDLE_MS = 150;
const original = globalThis.fetch;
let timings: FetchTiming[] = [];
let flushTimer: ReturnType<typeof setTimeout> | undefined;

function flush(): void {
  flushTimer = undefined;
  const batch = timings;
  timings = [];
  for (let i = 0; i < batch.length; i += 500) {
    console.error(`[bench-fetch] ${JSON.stringify(batch.slice(i, i + 500))}`);
  }
}

globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  if (flushTimer !== undefined) clearTimeout(flushTimer);
  const started = performance.now();
  const url = new URL(input instanceof Request ? input.url : String(input));
  const label = `${init?.method ?? "GET"} ${url.pathname}`;
  try {
    const response = await original(input, init);
    const body = await response.arrayBuffer();
    timings.push([label, started, performance.now()]);
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  } finally {
    flushTimer = setTimeout(flush, IDLE_MS);
  }
};
