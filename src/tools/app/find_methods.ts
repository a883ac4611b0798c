// find_methods: words in, the best-matching methods of every installed app out (src/apps/method_index.ts), each
// with the tool that runs it (or none: then `call`) and the next step, and the server's own tools that match ("who
// are the peers", "delete an alias"). The way to find a method or a tool when a host defers tools behind its own
// search, when --max-tools or --apps leave apps without tools, or when there are thousands.

import { z } from "zod";
import { scriptSlugs } from "../../apps/script_slugs.ts";
import { isReadOnly, signatureLine } from "../../apps/abi_format.ts";
import {
  buildWordIndex,
  methodIndexOf,
  queryWords,
  type WordIndex,
  words,
} from "../../apps/method_index.ts";
import { resolveApplication } from "../../apps/resolve.ts";
import { jsonResult } from "../../answer/result.ts";
import { oneLine } from "../../lib/text.ts";
import type { ToolDeps } from "../deps.ts";
import { applicationParam } from "../params.ts";
import { defineTool, output, READ_ONLY, type Tool } from "../tool.ts";

/** How many methods find_methods returns by default, and at most. */
export const FIND_DEFAULT = 10;
export const FIND_MAX = 50;
/** How many of the server's own tools it returns at most. */
export const FIND_TOOLS = 5;

const toolIndexes = new WeakMap<readonly Tool[], WordIndex<Tool>>();

/** The word index of the fixed tools (name, title, parameters, description), built once per list. */
function toolIndexOf(tools: readonly Tool[]): WordIndex<Tool> {
  let index = toolIndexes.get(tools);
  if (!index) {
    index = buildWordIndex(tools.map((tool) => ({
      item: tool,
      name: words(tool.name),
      fullName: tool.name,
      // The title's words and the words people use for it stand where an app method's app name does (3 / 2).
      app: [...words(tool.title), ...(tool.keywords ?? []).flatMap(words)],
      params: Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>)
        .flatMap(words),
      doc: words(tool.description),
      events: [],
      order: [tool.name],
    })));
    toolIndexes.set(tools, index);
  }
  return index;
}

/** find_methods. */
export function findMethods(deps: ToolDeps): Tool {
  return defineTool({
    name: "find_methods",
    title: "Find app methods",
    description:
      "Finds app methods (names, docs, parameters, events) and this server's tools by words, with their tool.",
    group: "app",
    input: z.object({
      query: z.string().min(1).max(500).describe("Words, e.g. 'create issue'."),
      app: applicationParam.optional().describe("Only this app."),
      limit: z.number().int().min(1).max(FIND_MAX).optional(),
    }),
    output: output({ matches: "array", tools: "array", next: "string", note: "string" }, [
      "matches",
    ]),
    annotations: READ_ONLY,
    alwaysLoad: true,
    run: ({ query, app, limit }) => {
      const state = deps.catalog.current();
      const only = app === undefined ? null : resolveApplication(state.apps, app).id;
      const readOnly = deps.config.readOnly;
      const hits = methodIndexOf(state.units).search(
        query,
        limit ?? FIND_DEFAULT,
        (m) =>
          (only === null || m.unit.applicationId === only) &&
          (!readOnly || isReadOnly(m.method)),
      );
      const generated = deps.generated();
      const toolOf = new Map<string, string>();
      for (const [name, t] of generated.names) {
        toolOf.set(`${t.applicationId}\0${t.service ?? ""}\0${t.method}`, name);
      }
      const slugOf = new Map(
        [...scriptSlugs(state.units, generated.names)].map(([s, u]) => [u, s]),
      );
      const matches = hits.map(({ unit, method }) => ({
        tool: toolOf.get(`${unit.applicationId}\0${unit.service ?? ""}\0${method.name}`) ?? null,
        script: `calimero.${slugOf.get(unit)}.${method.name}`,
        app: unit.package,
        ...(unit.service ? { service: unit.service } : {}),
        method: method.name,
        signature: signatureLine(method),
        ...(method.doc ? { doc: oneLine(method.doc.split(/\n\s*\n/)[0], 160) } : {}),
        readOnly: isReadOnly(method),
      }));
      // The server's own tools, where one matches at least as well as the best app method (an app query is not
      // answered with every tool that shares a verb).
      const best = hits[0]?.score ?? 0;
      const tools = app !== undefined ? [] : toolIndexOf(deps.fixed())
        .search(query, FIND_TOOLS)
        .filter(({ score }) => score >= best)
        .map(({ item }) => ({ tool: item.name, description: item.description }));
      const anyTool = matches.some((m) => m.tool !== null);
      const ownTools = tools.length === 0
        ? ""
        : " This server's own tools that match are under `tools`: call them by name.";
      const next = matches.length === 0 && tools.length > 0
        ? `No app method matched.${ownTools}`
        : matches.length === 0
        ? `Nothing matched "${
          oneLine(query, 80)
        }" in ${state.units.length} app units: try other words, or list_applications and describe_app.`
        : `Next: select_app with the app (and a context) for an app_handle, then ${
          anyTool ? "call the match's tool with it, or " : ""
        }\`call\` with the app_handle and the method${
          anyTool ? "" : " (per-method tools are not listed for these apps)"
        }; for many calls, run_script with the match's \`script\` name.${ownTools}`;
      // Words that match nothing installed — often the name of an app that is not here ("todo app…"): said, with
      // what is installed, so the other words' matches are not taken for that app's methods.
      const unknown = app !== undefined || matches.length === 0
        ? []
        : queryWords(query).filter((w) =>
          methodIndexOf(state.units).search(w, 1).length === 0 &&
          toolIndexOf(deps.fixed()).search(w, 1).length === 0
        );
      const installed = [...new Set(state.units.map((u) => u.package))];
      const note = unknown.length === 0 ? {} : {
        note: `No installed app or method matches ${
          unknown.slice(0, 5).map((w) => `"${oneLine(w, 40)}"`).join(", ")
        }: the matches share the query's other words. Installed: ${
          installed.slice(0, 12).join(", ")
        }${
          installed.length > 12 ? `, … (${installed.length})` : ""
        }; install_application adds an app.`,
      };
      return Promise.resolve(
        jsonResult({ matches, ...(tools.length > 0 ? { tools } : {}), next, ...note }),
      );
    },
  });
}
