// B7: surface weight, the bytes an agent pays on every turn: the fixed tools' tools/list, the generated tools
// of the sample apps' ABIs (per tool), the longest description and the `instructions`, in both eras.

import { type SampleAppName, startSimNode } from "../sim_node/mod.ts";
import { generatedCount } from "./b3_scale.ts";
import { MAIN } from "./fixture.ts";
import { atMost, type BenchResult, info, type Metric } from "./report.ts";
import { initialize, modernRequest, spawnServer } from "./stdio_client.ts";

/** The sample apps whose ABIs are modelled on real apps (tests/sim_node/apps/fixtures). */
const SAMPLE_ABI_APPS: SampleAppName[] = ["kv-store", "mero-issue-tracker", "abi-coverage"];
const ERAS = ["2025-11-25", "2026-07-28"] as const;
type Era = typeof ERAS[number];
const KB = 1024;

interface ListedTool {
  name: string;
  description?: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

interface Surface {
  tools: ListedTool[];
  instructions: string;
}

const byteLength = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

/** Lists the tools (and reads the instructions) of a server on a node with `apps`, in one era. */
async function surface(
  era: Era,
  apps: SampleAppName[],
  keepAbiDocs: boolean,
): Promise<Surface> {
  const sim = await startSimNode({ apps, keepAbiDocs });
  const server = await spawnServer(MAIN, { CALIMERO_NODE_URL: sim.url });
  try {
    let instructions: string;
    let list;
    if (era === "2025-11-25") {
      instructions = (await initialize(server)).message.result.instructions ?? "";
      list = await server.request("tools/list");
    } else {
      instructions = (await modernRequest(server, "server/discover")).message.result.instructions ??
        "";
      list = await modernRequest(server, "tools/list");
    }
    const tools = list.message.result.tools as ListedTool[];
    if (apps.length > 0 && generatedCount(tools) === 0) {
      throw new Error(`no generated tools listed for ${apps.join(", ")}`);
    }
    return { tools, instructions };
  } finally {
    await server.close();
    await sim.close();
  }
}

/** What the model itself is given of a tool (the hosts' tool formats keep name, description and inputSchema). */
function modelView(tool: ListedTool): Record<string, unknown> {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

/** Average bytes of one generated tool's fields, largest first, as "field bytes" pairs. */
function fieldBreakdown(tools: ListedTool[]): string {
  const totals = new Map<string, number>();
  for (const tool of tools) {
    for (const [key, value] of Object.entries(tool)) {
      totals.set(key, (totals.get(key) ?? 0) + byteLength(value) + key.length + 4);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1])
    .map(([key, total]) => `${key} ${Math.round(total / tools.length)}`).join(", ");
}

/** Runs B7. */
export async function b7(): Promise<BenchResult> {
  const metrics: Metric[] = [];
  const notes: string[] = [];
  let longest = { length: 0, name: "" };
  let instructions = "";
  const perTool: number[] = [];
  const modelVisible: number[] = [];
  const fixedBytes: number[] = [];
  const fixedSeen: number[] = [];
  const loadedBytes: number[] = [];
  let fixedCount = 0;
  let loadedNames: string[] = [];
  for (const era of ERAS) {
    const fixed = await surface(era, [], false);
    instructions = fixed.instructions;
    const bytes = byteLength(fixed.tools);
    fixedBytes.push(bytes);
    fixedSeen.push(byteLength(fixed.tools.map(modelView)));
    fixedCount = fixed.tools.length;
    const loaded = fixed.tools.filter((t) => t._meta?.["anthropic/alwaysLoad"] === true);
    loadedNames = loaded.map((t) => t.name);
    loadedBytes.push(byteLength(loaded));
    metrics.push(
      info(`(a) fixed tools alone, ${era}: ${fixed.tools.length} tools`, bytes, "bytes"),
    );
    for (const keepAbiDocs of [false, true]) {
      const all = await surface(era, SAMPLE_ABI_APPS, keepAbiDocs);
      for (const tool of all.tools) {
        const length = tool.description?.length ?? 0;
        if (length > longest.length) longest = { length, name: tool.name };
      }
      const generated = all.tools.filter((t) => t._meta?.["calimero/app"] !== undefined);
      const average = byteLength(generated) / generated.length;
      perTool.push(average);
      const seen = byteLength(generated.map(modelView)) / generated.length;
      modelVisible.push(seen);
      const docs = keepAbiDocs ? "ABI docs kept" : "ABI docs stripped (node route)";
      metrics.push(
        info(
          `(b) per generated tool, ${era}, ${docs}: ${generated.length} tools`,
          average,
          "bytes",
        ),
        info(`(c) model-visible per generated tool, ${era}, ${docs}`, seen, "bytes"),
      );
      const byApp = new Map<string, ListedTool[]>();
      for (const tool of generated) {
        const pkg = (tool._meta!["calimero/app"] as { package: string }).package;
        byApp.set(pkg, [...byApp.get(pkg) ?? [], tool]);
      }
      notes.push(
        `${era}, ${docs}: per app ${
          [...byApp].map(([pkg, tools]) =>
            `${pkg} ${Math.round(byteLength(tools) / tools.length)} B`
          )
            .join(", ")
        }; average field sizes: ${fieldBreakdown(generated)}.`,
      );
    }
  }
  const worstFixed = Math.max(...fixedBytes);
  const worstPerTool = Math.max(...perTool);
  const strippedVisible = Math.max(modelVisible[0], modelVisible[2]);
  return {
    id: "B7",
    title: "surface weight (tools/list bytes, descriptions, instructions)",
    metrics: [
      ...metrics,
      info(`(a) fixed tools alone (${fixedCount}), larger era`, worstFixed / KB, "KiB"),
      info(
        "(a) fixed tools alone, model-visible, larger era",
        Math.max(...fixedSeen) / KB,
        "KiB",
      ),
      atMost(
        "(a) model-visible per fixed tool, average, larger era",
        Math.max(...fixedSeen) / fixedCount,
        "bytes",
        450,
        "≤ 450 bytes",
      ),
      atMost(
        `(d) always-loaded set (${loadedNames.length} tools), whole entries, larger era`,
        Math.max(...loadedBytes) / KB,
        "KiB",
        6000 / KB,
        "≤ 6 KB",
      ),
      atMost(
        "(b) per generated tool, worst of the four",
        worstPerTool,
        "bytes",
        700,
        "≤ 700 bytes",
      ),
      atMost(
        "(c) model-visible per generated tool, ABI docs stripped (as the node serves ABIs), worse era",
        strippedVisible,
        "bytes",
        360,
        "≤ 360 bytes",
      ),
      atMost(
        `longest description (${longest.name})`,
        longest.length,
        "chars",
        1024,
        "≤ 1,024 chars",
      ),
      atMost("instructions", instructions.length, "chars", 1000, "≤ 1,000 chars"),
    ],
    notes: [
      "Bytes of the `tools` array of one tools/list answer as the server sent it (compact JSON, UTF-8); fixed tools on a node with no apps, generated tools on a node with the sample apps kv-store, mero-issue-tracker and abi-coverage (tests/sim_node/apps/fixtures). The fixed tools are held per tool (the surface grows by tools, each must stay light) and the always-loaded set at 6,000 bytes.",
      "The 2025-era list is larger: the SDK wraps non-object output schemas for those clients.",
      `(d) the tools that carry \`anthropic/alwaysLoad\` (what a host that defers tools keeps in the model's context on every turn; the rest are found through its search): ${
        loadedNames.join(", ")
      }.`,
      "Model-visible: what the Anthropic, OpenAI and Gemini tool formats pass to the model, `{name, description, inputSchema}` as compact JSON; title, annotations, outputSchema and _meta stay with the client. The target is read for ABIs as the node serves them (its ABI route strips docs); with docs kept the figure is shown beside it.",
      ...notes,
    ],
  };
}
