// What is installed and where it runs: the apps (with their metadata's author and guide named) and the namespaces.

import { z } from "zod";
import { callOptions, defineTool, READ_ONLY, type Tool } from "../tool.ts";
import { jsonResult } from "../../answer/result.ts";
import { collectPages, fromOffset, listOutput, listPage, pageInput } from "../list.ts";
import { decodeMetadata, procedures } from "../../apps/guide.ts";
import type { Application } from "../../mero/mod.ts";
import { stringifyJson } from "../../lib/json.ts";
import { oneLine } from "../../lib/text.ts";
import type { ToolDeps } from "../deps.ts";

/**
 * `list_applications` lists installed apps: id, package, version, signer, metadata, services, procedures.
 */
export function listApplications(deps: ToolDeps): Tool {
  return defineTool({
    name: "list_applications",
    title: "List applications",
    description:
      "Lists installed apps: id, package, version, signer, metadata, services, procedures.",
    group: "core",
    input: z.object({ ...pageInput }),
    output: listOutput("apps", { notAnswering: "array" }),
    annotations: READ_ONLY,
    alwaysLoad: true,
    large: true,
    run: async (args, call) => {
      const { items, more } = fromOffset(await deps.apps.list(callOptions(call)), args);
      return jsonResult({
        ...listPage("apps", items.map(summarizeApp), args, deps.config, more),
        notAnswering: deps.notAnswering(),
      });
    },
  });
}

/** `list_namespaces` lists the namespaces this node belongs to. */
export function listNamespaces(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "list_namespaces",
    title: "List namespaces",
    description: "Lists the namespaces this node belongs to.",
    group: "core",
    input: z.object({ ...pageInput }),
    output: listOutput("namespaces"),
    annotations: READ_ONLY,
    large: true,
    run: async (args, call) => {
      const o = callOptions(call);
      const { items, truncated } = await collectPages(
        (page) => admin.listNamespaces(page, o),
        (ns) => String(ns.namespaceId ?? stringifyJson(ns)),
        args.offset,
        args.limit,
      );
      return jsonResult(listPage("namespaces", items, args, deps.config, truncated));
    },
  });
}

/** One app as `list_applications` shows it: record facts, display metadata without the guide, procedures. */
export function summarizeApp(app: Application): Record<string, unknown> {
  const metadata = decodeMetadata(app.metadata);
  const guide = metadata?.guide;
  let display: unknown = null;
  if (metadata !== null) {
    const { guide: _guide, ...rest } = metadata;
    display = authorText(rest, 0);
  }
  return {
    id: app.id,
    package: app.package ?? null,
    appVersion: app.version || null,
    signerId: app.signer_id ?? null,
    metadata: display,
    services: Object.keys(app.services ?? {}),
    procedures: typeof guide === "string"
      ? procedures(guide).slice(0, 50).map((p) => oneLine(p, 120))
      : [],
  };
}

/**
 * An app author's metadata as shown to the agent: strings one line of at most 300 characters without control
 * characters, at most 32 keys and 20 items per level, two levels deep; anything else is left out.
 */
function authorText(value: unknown, depth: number): unknown {
  if (typeof value === "string") return oneLine(value, 300);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return value;
  if (depth >= 2) return undefined;
  if (Array.isArray(value)) {
    return value.slice(0, 20).map((item) => authorText(item, depth + 1)).filter((v) =>
      v !== undefined
    );
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).slice(0, 32)
      .map(([key, item]) => [oneLine(key, 60), authorText(item, depth + 1)] as const)
      .filter(([, item]) => item !== undefined);
    return Object.fromEntries(entries);
  }
  return undefined;
}
