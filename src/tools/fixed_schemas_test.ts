// The precomputed fixed-tool input schemas (fixed_schemas.json) are exactly what zod computes now, for every
// fixed tool and no other. `deno task snapshots` writes them again after a tool's input changes.

import assert from "node:assert/strict";
import { fixedTools } from "./registry.ts";
import type { Tool } from "./tool.ts";
import { fakeDeps } from "../testing/tool_deps.ts";
import { inputJsonSchema } from "./tool.ts";
import stored from "./fixed_schemas.json" with { type: "json" };

/** Every fixed tool (all toolsets on) and the app tools; their definitions read no deps. */
function allFixed(): Tool[] {
  return fixedTools(fakeDeps({}).deps);
}

/** Every fixed tool's input schema as zod computes it now, by name (all toolsets on). */
export function liveFixedSchemas(): Record<string, Record<string, unknown>> {
  const tools = allFixed();
  return Object.fromEntries(
    tools.map((t) => [t.name, inputJsonSchema(t.input!)] as const).sort(([a], [b]) =>
      a < b ? -1 : 1
    ),
  );
}

Deno.test("the precomputed fixed-tool input schemas match zod's, tool for tool (run `deno task snapshots`)", () => {
  const live = liveFixedSchemas();
  assert.deepEqual(Object.keys(stored).sort(), Object.keys(live).sort(), "the same fixed tools");
  assert.deepEqual(stored, live);
  for (const tool of allFixed()) {
    assert.deepEqual(
      tool.inputSchema,
      live[tool.name],
      `${tool.name} is listed with the precomputed schema`,
    );
  }
});
