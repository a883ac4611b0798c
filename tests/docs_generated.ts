// The parts of the documentation that are the code's own words: the tools table (docs/tools.md) from the server's
// tool definitions, the configuration table (docs/configuration.md) from the flag and environment tables. Each is a
// block between markers; `deno task snapshots` writes them, and tests/docs_test.ts fails when one is stale.

import { fixedTools } from "../src/tools/registry.ts";
import { fakeDeps } from "../src/testing/tool_deps.ts";
import type { Tool } from "../src/tools/tool.ts";
import { DEFAULTS, ENV_ONLY, FLAGS } from "../src/config/flags.ts";

/** The fixed tools as a server with every toolset on lists them. */
export function allFixedTools(): Tool[] {
  return fixedTools(fakeDeps({}).deps);
}

/** The toolset a tool belongs to, as a person names it. */
const TOOLSET: Record<string, string> = {
  core: "core",
  blobs: "blobs",
  governance: "governance",
  app: "app tools",
};

/** What a tool does to the node, and when it asks the person first. */
function effect(tool: Tool): string {
  const kind = tool.annotations.readOnlyHint ? "reads" : "writes";
  const asks = tool.asks ?? (tool.annotations.destructiveHint ? "always" : null);
  return asks === null ? kind : `${kind}; asks first ${asks}`;
}

/** The first sentence of a description. */
function firstSentence(text: string): string {
  return text.split(/(?<=[.!?])\s/)[0].replaceAll("|", "\\|");
}

/** The tools table's block: a count line per toolset, then one row per tool in listing order. */
export function toolsBlock(tools: Tool[] = allFixedTools()): string {
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(tool.group, (counts.get(tool.group) ?? 0) + 1);
  const appTools = counts.get("app") ?? 0;
  const node = tools.length - appTools;
  const rows = tools.map((tool) =>
    `| \`${tool.name}\` | ${TOOLSET[tool.group] ?? tool.group} | ${
      firstSentence(tool.description)
    } | ${effect(tool)} |`
  );
  return [
    `${node} fixed tools for the node (${
      [...counts].filter(([g]) => g !== "app").map(([g, n]) => `${g} ${n}`).join(", ")
    }) and ${appTools} app tools, as \`doctor\` counts them; each installed app's methods add generated tools.`,
    "",
    "| tool | toolset | what it does | reads or writes |",
    "| --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

/** The configuration table's block: every flag with its variable, then the variables read from the environment. */
export function configurationBlock(): string {
  const flagRows = Object.values(FLAGS).map((flag) =>
    `| \`${flag.usage.replaceAll("|", "\\|")}\` | ${flag.env ? `\`${flag.env}\`` : ""} | ${
      flag.about.replaceAll("\n", " ").replaceAll("|", "\\|")
    } |`
  );
  const envRows = Object.entries(ENV_ONLY).map(([name, about]) =>
    `| \`${name}\` | ${about.replaceAll("|", "\\|")} |`
  );
  return [
    "| flag | environment variable | what it sets |",
    "| --- | --- | --- |",
    ...flagRows,
    "",
    "| environment variable (no flag) | what it sets |",
    "| --- | --- |",
    ...envRows,
    "",
    `The node's requests time out after ${
      DEFAULTS.nodeTimeoutMs / 1000
    } s, the catalog is read again every ${DEFAULTS.pollSeconds} s, and a tool result carries at most ${
      DEFAULTS.resultChars.toLocaleString("en")
    } characters, unless set otherwise above.`,
  ].join("\n");
}

/** The block between `<!-- name:start -->` and `<!-- name:end -->` in `text` (blank lines around it dropped), or null. */
export function markedBlock(text: string, name: string): string | null {
  const match = new RegExp(`<!-- ${name}:start -->([\\s\\S]*?)<!-- ${name}:end -->`).exec(text);
  return match ? match[1].trim() : null;
}

/** `text` with the block `name` replaced by `block`, which stands between its markers on lines of its own. */
export function withBlock(text: string, name: string, block: string): string {
  const re = new RegExp(`<!-- ${name}:start -->[\\s\\S]*?<!-- ${name}:end -->`);
  if (!re.test(text)) throw new Error(`no <!-- ${name}:start --> block`);
  return text.replace(re, () => `<!-- ${name}:start -->\n\n${block}\n\n<!-- ${name}:end -->`);
}

/** The generated blocks: file → block name → content. */
export function generatedDocs(): { file: string; name: string; block: string }[] {
  return [
    { file: "docs/tools.md", name: "tools", block: toolsBlock() },
    { file: "docs/configuration.md", name: "configuration", block: configurationBlock() },
  ];
}

/** Markdown as `deno fmt` leaves it, made comparable: table padding, separator widths and line wrapping ignored. */
export function comparable(markdown: string): string {
  return markdown.replace(/-{3,}/g, "---").replace(/\s+/g, " ").trim();
}
