// Test-only worker module: the real server worker, which then fails with an uncaught error.

import "../../src/server/index.ts";

(self as unknown as Worker).addEventListener("message", (event: MessageEvent) => {
  if (event.data?.type !== "config") return;
  setTimeout(() => {
    throw new Error("the probe made the worker die");
  }, 200);
});
