// Profiling-only entry: runs the real server worker module (src/server/index.ts) on the main thread, with this file
// playing main's part (config in, stdin lines in, stdout lines out), because `deno run --cpu-prof` profiles
// the main isolate only. No sandbox and no relay hop: for reading profiles, never for timing the product.
// With `--v8-flags=--expose-gc`, the line `{"bench":"heap"}` answers `{"bench":{"heapUsed":…}}` after a full GC.

import { CONFIG_ENV_VARS, parseConfig } from "../../src/config/config.ts";
import type { FromWorker, ToWorker } from "../../src/server/relay.ts";

const encoder = new TextEncoder();
const scope = globalThis as unknown as {
  postMessage(message: FromWorker): void;
  onmessage: ((event: { data: ToWorker }) => void) | null;
};
function writeAll(bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}
scope.postMessage = (message) => {
  if (message.type === "out") writeAll(message.bytes);
  else if (message.type === "drained") Deno.exit(0);
  else if (message.type === "fatal") {
    Deno.stderr.writeSync(encoder.encode(`${message.message}\n`));
    Deno.exit(1);
  }
};

// Imported after the shim: src/server/index.ts takes `self` as its worker scope when it evaluates.
await import("../../src/server/index.ts");

const env: Record<string, string | undefined> = {};
for (const name of CONFIG_ENV_VARS) env[name] = Deno.env.get(name);
const config = parseConfig(Deno.args, env);
await Deno.mkdir(config.stateDir, { recursive: true, mode: 0o700 });
const deliver = (data: ToWorker) => scope.onmessage?.({ data });
deliver({ type: "config", config });

const HEAP_PROBE = '{"bench":"heap"}';
function answerHeap(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const { heapUsed, heapTotal, external, rss } = Deno.memoryUsage();
  writeAll(
    encoder.encode(
      JSON.stringify({
        bench: { heapUsed, heapTotal, external, rss, collected: gc !== undefined },
      }) + "\n",
    ),
  );
}

let buffer = "";
for await (const text of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  buffer += text;
  let newline;
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const line = buffer.slice(0, newline);
    if (line === HEAP_PROBE) answerHeap();
    else deliver({ type: "line", line });
    buffer = buffer.slice(newline + 1);
  }
}
deliver({ type: "close" });
