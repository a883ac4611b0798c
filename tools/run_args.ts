// How mero-mcp runs from source, written once: the server permission set (deno.json) and the V8 flags the compiled
// executable bakes in (tools/compile.ts), so the tests, the bench, the demo and `deno task dev` run the server as it
// ships. deno.json's `dev` task spells the same out (tools/run_args_test.ts holds them equal).

/**
 * `--optimize-for-size`: V8 keeps its heap small and collects young garbage sooner. Measured (B3, B6): the 200-app
 * catalog's resident set 222 → 141 MiB, RSS growth over the first 1,000 calls 42 → 4.5 MiB and flat after; call
 * latency within the run-to-run noise; the first catalog load of 5,000 tools ~10–40% slower. A run-time flag cannot
 * reach the worker's isolate any other way: V8 flags are set for the process when it starts.
 */
export const V8_FLAGS = ["--optimize-for-size"];

/** The `deno run` arguments before the entry module. */
export const SERVER_RUN_ARGS = ["run", "-P=server", "--quiet", `--v8-flags=${V8_FLAGS.join(",")}`];
