// The `doctor` sections built from the catalog and the tool surface: each installed app (loaded with its tool
// count, or why it fails to load) and the tool count against common client limits, with advice.

import { type CatalogState, leftOutReason } from "../../apps/catalog.ts";
import type { Config } from "../../config/config.ts";
import type { Snapshot } from "../../server/surface.ts";
import type { Tool } from "../../tools/tool.ts";
import type { Application } from "../../mero/mod.ts";
import { appUnits, appVersion, packageOrId, sortApps } from "../../apps/resolve.ts";
import type { DoctorLine, DoctorSection } from "./report.ts";
import { type AppMarks, unknownMarked, unmarked } from "../../apps/marks.ts";
import { plural } from "../report.ts";

/** Tool limits of common clients: past these, a client refuses or silently drops tools. */
export const CLIENT_TOOL_LIMITS: readonly number[] = [40, 50, 128];

/** The catalog after one refresh and the surface it produced, as the server would list them. */
export interface CatalogFacts {
  state: CatalogState;
  snapshot: Snapshot;
  config: Config;
}

/** One line per app unit: ok with its generated tool count, or warn with why it fails to load. */
export function appsSection(facts: CatalogFacts | null, skipped: string | null): DoctorSection {
  const title = "Apps";
  if (facts === null) {
    const detail = `not checked: ${skipped ?? "the server runtime could not start"}`;
    return { title, lines: [{ status: "skip", label: "applications", detail }] };
  }
  const { state, snapshot, config } = facts;
  if (!state.loaded) {
    return {
      title,
      lines: [{ status: "fail", label: "applications", detail: state.notAnswering.join("; ") }],
    };
  }
  if (state.apps.length === 0) {
    return { title, lines: [{ status: "info", label: "applications", detail: "none installed" }] };
  }
  const generated = [...snapshot.tools.values()].filter((t) => t.group === "generated");
  const lines: DoctorLine[] = [];
  for (const app of sortApps(state.apps)) {
    for (const { service } of appUnits(app)) {
      const label = packageOrId(app);
      const version = appVersion(app) ?? "no version";
      const where = service === null ? version : `${version}, service "${service}"`;
      const loaded = state.units.some((u) => u.applicationId === app.id && u.service === service);
      if (!loaded) {
        lines.push({
          status: "warn",
          label,
          detail: `${where}: fails to load, left out of the tool list: ${
            failureReason(state, app, service)
          }`,
        });
        continue;
      }
      const count = generated.filter((t) => belongsTo(t, app, service)).length;
      const why = count === 0 ? ` (${noToolsReason(config, snapshot)})` : "";
      lines.push({ status: "ok", label, detail: `${where}: ${plural(count, "tool")}${why}` });
    }
  }
  return { title, lines };
}

/** Total tools against each client limit, with the flags that bring the count down. */
export function toolsSection(
  facts: CatalogFacts | null,
  snapshot: Snapshot | null,
  config: Config,
  skipped: string | null,
): DoctorSection {
  const title = "Tools";
  if (snapshot === null) {
    return {
      title,
      lines: [{
        status: "skip",
        label: "count",
        detail: "not checked: the server runtime could not start",
      }],
    };
  }
  const tools = [...snapshot.tools.values()];
  const generated = tools.filter((t) => t.group === "generated").length;
  const appTools = tools.filter((t) => t.group === "app").length;
  const total = tools.length;
  const unknown = facts === null
    ? `; generated tools unknown: ${skipped ?? "the app list was not read"}`
    : "";
  const apps = config.toolsets.includes("apps")
    ? ` + ${appTools} app tools + ${generated} generated`
    : " (the apps toolset is off)";
  const lines: DoctorLine[] = [{
    status: "info",
    label: "count",
    detail: `${total} tools: ${total - generated - appTools} fixed (${
      config.toolsets.filter((t) => t !== "apps").join(", ")
    })${apps}${unknown}`,
  }];
  lines.push({
    status: "info",
    label: "mode",
    detail: config.readOnly
      ? "read-only (--read-only): only tools that read are listed; methods that write are refused"
      : "read-write (--read-only lists only the tools that read)",
  });
  lines.push({
    status: "info",
    label: "confirm",
    detail: config.confirmDestructive === "require"
      ? "destructive tools ask the person first, and are refused where the client cannot ask"
      : "destructive tools ask the person first where the client can ask (--confirm-destructive require refuses them elsewhere)",
  });
  // Without the app list the count is a floor: judging it against the limits would mislead.
  if (facts === null) return { title, lines };
  // One line for the common clients' limits: a warning only past the largest, where every capped client drops some.
  const over = CLIENT_TOOL_LIMITS.filter((limit) => total > limit);
  const largest = CLIENT_TOOL_LIMITS[CLIENT_TOOL_LIMITS.length - 1];
  lines.push(
    over.length === 0
      ? {
        status: "ok",
        label: "limits",
        detail: `fits every common client limit (${CLIENT_TOOL_LIMITS.join(", ")})`,
      }
      : {
        status: total > largest ? "warn" : "info",
        label: "limits",
        detail: `${total} tools, over ${andList(over.map(String))} (by ${
          andList(over.map((limit) => String(total - limit)))
        }): a client that takes only that many drops or refuses some${
          total > largest ? "" : `; fits ${largest}`
        }`,
      },
  );
  if (over.length > 0) lines.push({ status: "info", label: "advice", detail: advice(tools, over) });
  for (const entry of facts.snapshot.notAnswering) {
    if (entry.startsWith("--apps ")) lines.push({ status: "warn", label: "--apps", detail: entry });
    else if (entry.startsWith("generated tools:")) {
      lines.push({ status: "warn", label: "--max-tools", detail: entry });
    }
  }
  return { title, lines };
}

function advice(tools: Tool[], over: number[]): string {
  const switchable = tools.filter((t) => t.group === "blobs" || t.group === "governance").length;
  const generated = tools.filter((t) => t.group === "generated").length;
  const tips: string[] = [];
  if (switchable > 0) {
    tips.push(`--toolsets core,apps leaves out the ${switchable} blobs and governance tools`);
  }
  if (generated > 0) tips.push("--apps <name,…> gives generated tools only to the apps you name");
  tips.push(
    `--max-tools ${
      over[0]
    } registers no generated tools when they would not fit; every method stays reachable through "call"`,
  );
  return tips.join("\n");
}

/** Why a unit failed to load, as the catalog recorded it. */
function failureReason(state: CatalogState, app: Application, service: string | null): string {
  return leftOutReason(state, app, service) ?? "its ABI could not be read";
}

function belongsTo(tool: Tool, app: Application, service: string | null): boolean {
  return tool.app !== undefined && tool.app.applicationId === app.id &&
    tool.app.service === service && tool.app.version === appVersion(app);
}

function noToolsReason(config: Config, snapshot: Snapshot): string {
  if (!config.toolsets.includes("apps")) return "the apps toolset is off";
  if (snapshot.notAnswering.some((e) => e.startsWith("generated tools:"))) {
    return "over --max-tools";
  }
  if (config.apps !== null) return "not named in --apps";
  return "no method gets a tool";
}

/**
 * The marks a person gave in the state directory (apps/marks.ts), and what the ABIs leave unsaid without them: no
 * view marked (every method taken for a write) and nothing marked destructive (no app method asked about before it
 * runs: core's ABI format has no such mark).
 */
export function marksLines(
  state: CatalogState,
  marks: { marks: AppMarks; problems: string[]; path: string },
): DoctorLine[] {
  const lines: DoctorLine[] = [];
  if (marks.problems.length > 0) {
    lines.push({
      status: "warn",
      label: "marks",
      detail: `${marks.path} is not used: ${marks.problems.join("; ")}`,
    });
  } else if (marks.marks.size > 0) {
    for (const [pkg, mark] of marks.marks) {
      const units = state.units.filter((u) => u.package === pkg);
      const unknown = units.length === 0 ? [] : unknownMarked(mark, units[0].manifest);
      lines.push(
        units.length === 0
          ? { status: "info", label: "marks", detail: `${pkg}: not installed here` }
          : unknown.length > 0
          ? {
            status: "warn",
            label: "marks",
            detail: `${pkg}: no method ${unknown.join(", ")} in its ABI`,
          }
          : {
            status: "ok",
            label: "marks",
            detail: `${pkg}: ${
              plural(mark.views.size, "view")
            }, ${mark.destructive.size} destructive`,
          },
      );
      // What the server does not apply to the app installed now (another signer or version, an ABI that says otherwise).
      const unapplied = [...new Set(units.flatMap((u) => u.manifest.unappliedMarks ?? []))];
      if (unapplied.length > 0) {
        lines.push({
          status: "warn",
          label: "marks",
          detail: `${pkg}: not applied: ${unapplied.join("; ")}`,
        });
      }
    }
  }
  const packages = (test: (u: CatalogState["units"][number]) => boolean) => [
    ...new Set(state.units.filter(test).map((u) => u.package)),
  ];
  const noViews = packages((u) => unmarked(u.manifest).noViews);
  const noDestructive = packages((u) => unmarked(u.manifest).noDestructive);
  if (noViews.length > 0) {
    lines.push({
      status: "info",
      label: "no views",
      detail: `${
        noViews.join(", ")
      }: every method is treated as a write (hosts ask before each; read-only mode hides them)`,
    });
  }
  if (noDestructive.length > 0) {
    lines.push({
      status: "info",
      label: "unmarked",
      detail: `${noDestructive.length} of ${
        new Set(state.units.map((u) => u.package)).size
      } apps mark no method destructive, so none is asked about before it runs; mark them in ${marks.path}`,
    });
  }
  return lines;
}

/** "a", "a and b", "a, b and c". */
function andList(items: string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
