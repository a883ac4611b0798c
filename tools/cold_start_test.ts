import assert from "assert";
import { coldStartTable, FROM_SOURCE, measureColdStart, parseColdStartArgs } from "./cold_start.ts";

Deno.test("cold_start measures both servers from source and writes the summary table", async () => {
  const options = { ...FROM_SOURCE, runs: 1 };
  const result = await measureColdStart(options);
  assert.ok(result.baseline > 0 && result.product > 0, JSON.stringify(result));
  const table = coldStartTable(result, options);
  assert.match(table, /\| mero-mcp \| `.*main\.ts` \| \d+\.\d ms \|/);
  assert.match(
    table,
    /Ratio mero-mcp ÷ minimal: \*\*\d+\.\d\d ×\*\* \(target ≤ 1\.5 ×: (pass|MISS)\)/,
  );
});

Deno.test("cold_start takes the compiled commands CI passes, and refuses anything else", () => {
  const options = parseColdStartArgs([
    "--runs",
    "5",
    "--product",
    "dist/mero-mcp",
    "--baseline",
    "dist/baseline",
  ]);
  assert.deepEqual([options.runs, options.product, options.baseline], [5, ["dist/mero-mcp"], [
    "dist/baseline",
  ]]);
  assert.throws(() => parseColdStartArgs(["--fast"]), /Unknown argument/);
});
