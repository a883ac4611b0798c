// Cost of the per-endpoint shape checks on realistic payloads (`deno bench src/mero/shape_bench.ts`):
// they run on every node answer, so they must stay far below the 1 ms per call budget (B2).

import { SHAPES } from "./shape.ts";

const app = (i: number) => ({
  id: `CXkYhpCqaFUy7hSwwSqipQphrZgmZTHbCKk6uXDQeC${i}`,
  blob: { bytecode: "8kUW3mXn2Z9oT1Gq4", compiled: "9kUW3mXn2Z9oT1Gq4" },
  size: 123456,
  source: "https://registry/x.mpk",
  metadata: Array.from({ length: 400 }, (_, k) => k % 256),
  package: `com.calimero.app${i}`,
  version: "1.0.0",
  services: { a: { bytecode: "x", compiled: "y" }, b: { bytecode: "x", compiled: "y" } },
});
const context = (i: number) => ({ id: `C${i}`, applicationId: "A", contextStateHash: "h" });

const apps = { apps: Array.from({ length: 10 }, (_, i) => app(i)) };
const contexts = { contexts: Array.from({ length: 100 }, (_, i) => context(i)) };
const rpc = { jsonrpc: "2.0", id: 1, result: { output: { value: "demo" } } };

Deno.bench("shape: application list of 10 records", () => {
  if (!SHAPES.apps.test(apps)) throw new Error("rejected");
});
Deno.bench("shape: a page of 100 contexts", () => {
  if (!SHAPES.contexts.test(contexts)) throw new Error("rejected");
});
Deno.bench("shape: a JSON-RPC result", () => {
  if (!SHAPES.rpc.test(rpc)) throw new Error("rejected");
});
