// describe_app: an app's methods and guide, to plan with, and a handle bound to no context.

import { z } from "zod";
import { issueHandle } from "../../calls/handle.ts";
import { signatureLine } from "../../apps/abi_format.ts";
import { contextService } from "../../calls/context.ts";
import { jsonResult } from "../../answer/result.ts";
import { scriptSlugs } from "../../apps/script_slugs.ts";
import type { CatalogUnit } from "../../apps/catalog.ts";
import { clientUri } from "../../answer/uris.ts";
import { fitItems } from "../../answer/budget.ts";
import { itemsBudget } from "../list.ts";
import type { ToolDeps } from "../deps.ts";
import { applicationParam, serviceParam } from "../params.ts";
import { callOptions, defineTool, output, READ_ONLY, type Tool } from "../tool.ts";
import { appContexts, appSummary, handlePayload, pickUnit, withGuide } from "./unit.ts";
import type { AbiManifest } from "../../apps/abi_format.ts";
import { MARKS_FILE, unmarked } from "../../apps/marks.ts";

/** describe_app. */
export function describeApp(deps: ToolDeps): Tool {
  return defineTool({
    name: "describe_app",
    title: "Describe app",
    description:
      "Shows an app's methods (signatures, docs) and guide, with a handle bound to no context: plan with it, act with select_app.",
    group: "app",
    input: z.object({ app: applicationParam, service: serviceParam.optional() }),
    output: output({
      app_handle: "string",
      methods: "array",
      guide: "string?",
      marks: "string",
      script: "string?",
    }, [
      "app_handle",
    ]),
    annotations: READ_ONLY,
    alwaysLoad: true,
    large: true,
    async run({ app, service }, call) {
      const picked = await pickUnit(deps, app, service, null);
      if ("refusal" in picked) return picked.refusal;
      const { unit } = picked;
      const handle = await issueHandle(deps.key, handlePayload(unit, null));
      const contexts = await appContexts(deps, unit.app, callOptions(call));
      const all = unit.manifest.methods.filter((m) => m.name !== "init").map((m) => ({
        signature: signatureLine(m),
        ...(m.doc ? { doc: m.doc } : {}),
      }));
      // The guide comes with it: the methods get what the budget leaves.
      const methods = fitItems(all, itemsBudget(deps.config) - (unit.guide?.length ?? 0));
      const summary = {
        ...appSummary(unit),
        contextServices: [
          ...new Set(
            contexts.map((c) => contextService(c, unit.app.services)).filter((s) => s !== null),
          ),
        ],
        app_handle: handle,
        note: "This handle names no context: call select_app with a context to act.",
        ...marksNote(unit.manifest),
        methods: methods.items,
        ...scriptNote(deps, unit),
        ...(methods.next_offset !== undefined
          ? {
            methodsNote:
              `Showing ${methods.next_offset} of ${all.length} methods: find_methods searches them all.`,
          }
          : {}),
      };
      return withGuide(jsonResult(summary), unit, true);
    },
  });
}

/** How run_script names this app, and where its typed client is. */
function scriptNote(deps: ToolDeps, unit: CatalogUnit): { script?: string } {
  const slug = [...scriptSlugs(deps.catalog.current().units, deps.generated().names)]
    .find(([, u]) => u.applicationId === unit.applicationId && u.service === unit.service)?.[0];
  return slug === undefined
    ? {}
    : { script: `run_script names it calimero.${slug}; its types: ${clientUri(slug)}` };
}

/**
 * What the app's ABI leaves unsaid that changes how its calls are handled: no view marked (every method is taken for
 * a write: asked about by hosts, hidden in read-only mode) and nothing marked destructive (no method is asked about
 * before it runs; core's ABI format has no such mark). A person marks them in the state directory (apps/marks.ts).
 */
function marksNote(manifest: AbiManifest): { marks?: string } {
  const { noViews, noDestructive } = unmarked(manifest);
  const unapplied = manifest.unappliedMarks ?? [];
  if (!noViews && !noDestructive && unapplied.length === 0) return {};
  return {
    marks: [
      unapplied.length > 0
        ? `Marks in ${MARKS_FILE} not applied to this app (so those methods count as writes): ${
          unapplied.join("; ")
        }.`
        : "",
      noViews ? "Its ABI marks no method as a view, so every method is treated as a write." : "",
      noDestructive
        ? "Its ABI marks no method as destructive, so none is asked about before it runs: treat clear/remove-like methods with care."
        : "",
      `The person running mero-mcp can mark them in ${MARKS_FILE} in its state directory (docs/app-developers.md, "Marking an app's methods").`,
    ].filter(Boolean).join(" "),
  };
}
