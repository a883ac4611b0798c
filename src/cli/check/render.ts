// The text form of a `check` report, for an app author at a terminal: each ABI file, the tools it would
// generate (name, length with a client prefix, annotations, signature), what is left out, problems, guide.

import type { Annotations } from "../../tools/tool.ts";
import {
  type CheckedTool,
  type CheckedUnit,
  type CheckReport,
  CLIENT_NAME_LIMIT,
  CLIENT_PREFIX,
  type Problem,
} from "./check.ts";
import { paint, plural, type Style } from "../report.ts";

const DOC_PREVIEW = 100;

/** Renders the report as text (ANSI colour only when `style.color`). Ends with a newline. */
export function renderCheck(report: CheckReport, style: Style): string {
  const out: string[] = [];
  out.push(`${paint(style, "bold", "mero-mcp check")} ${report.path}`);
  const names = report.packageAssumed
    ? `Tool names as for a package ending in "${report.package}" (guessed from the path; on a ` +
      `node the installed package's last segment decides).`
    : `Package ${report.package}.`;
  out.push(`  ${names}`);
  if (report.problems.length > 0) out.push("", ...problemBlock(style, report.problems));
  for (const unit of report.units) out.push("", ...unitBlock(style, unit, report.kind));
  if (report.guide !== null) {
    out.push("", paint(style, "bold", `Guide: ${report.guide.source}`));
    const list = report.guide.procedures;
    out.push(
      list.length === 0
        ? "  Procedures: none"
        : `  Procedures (${list.length}):\n${list.map((p) => `    - ${p}`).join("\n")}`,
    );
    if (report.guide.problems.length > 0) out.push(...problemBlock(style, report.guide.problems));
  }
  out.push("", verdict(style, report));
  return out.join("\n") + "\n";
}

function unitBlock(style: Style, unit: CheckedUnit, kind: CheckReport["kind"]): string[] {
  const lines: string[] = [];
  const title = unit.service === null
    ? (kind === "bundle" ? `App ABI: ${unit.abiPath}` : `ABI: ${unit.abiPath}`)
    : `Service "${unit.service}": ${unit.abiPath}`;
  lines.push(paint(style, "bold", title));
  if (unit.schemaVersion !== null) {
    const c = unit.counts;
    lines.push(
      `  ${unit.schemaVersion}: ${plural(c.methods, "method")}, ${plural(c.types, "type")}, ${
        plural(c.events, "event")
      }`,
    );
    lines.push(...toolBlock(style, unit.tools));
  }
  if (unit.leftOut.length > 0) {
    lines.push(`  Left out (${unit.leftOut.length}):`);
    for (const l of unit.leftOut) lines.push(`    ${l.method}: ${l.reason}`);
  }
  if (unit.problems.length > 0) lines.push(...problemBlock(style, unit.problems));
  return lines;
}

function toolBlock(style: Style, tools: CheckedTool[]): string[] {
  if (tools.length === 0) return ["  Tools: none"];
  const width = Math.max(...tools.map((t) => t.name.length));
  const lines = [
    `  Tools (${tools.length}); the number is the name's length with "${CLIENT_PREFIX}" in front ` +
    `(clients accept ${CLIENT_NAME_LIMIT}):`,
  ];
  for (const tool of tools) {
    const length = String(tool.prefixedLength).padStart(3);
    const over = tool.prefixedLength > CLIENT_NAME_LIMIT;
    lines.push(
      `    ${paint(style, "cyan", tool.name.padEnd(width))} ${
        over ? paint(style, "red", `${length} too long`) : length
      }  ${annotationWords(tool.annotations)}`,
    );
    lines.push(`      ${tool.signature}`);
    const doc = tool.description.split("\n").slice(0, -1).join(" ").trim();
    if (doc !== "") {
      const preview = doc.length > DOC_PREVIEW ? `${doc.slice(0, DOC_PREVIEW - 1)}…` : doc;
      lines.push(`      ${paint(style, "dim", preview)}`);
    }
  }
  return lines;
}

/** `read-only, idempotent` / `writes, destructive`: the hints a client gates approval on. */
function annotationWords(a: Annotations): string {
  const words = [a.readOnlyHint ? "read-only" : "writes"];
  if (a.destructiveHint) words.push("destructive");
  if (a.idempotentHint) words.push("idempotent");
  if (a.openWorldHint) words.push("open-world");
  return words.join(", ");
}

const SEVERITY_TAG = {
  error: { text: "error", paint: "red" },
  warning: { text: "warn", paint: "yellow" },
  note: { text: "note", paint: "cyan" },
} as const;

function problemBlock(style: Style, problems: Problem[]): string[] {
  const lines = [`  Problems (${problems.length}):`];
  for (const p of problems) {
    const tag = SEVERITY_TAG[p.severity];
    lines.push(`    ${paint(style, tag.paint, tag.text.padEnd(5))} ${p.message}`);
  }
  return lines;
}

function verdict(style: Style, report: CheckReport): string {
  const all = [
    ...report.problems,
    ...report.units.flatMap((u) => u.problems),
    ...(report.guide?.problems ?? []),
  ];
  const errors = all.filter((p) => p.severity === "error").length;
  const warnings = all.filter((p) => p.severity === "warning").length;
  const tail = warnings > 0 ? `, ${plural(warnings, "warning")}` : "";
  if (report.valid) {
    return `${paint(style, "green", "Valid")}: ${
      plural(report.toolCount, "tool")
    } would be generated${tail}.`;
  }
  return `${paint(style, "red", "Invalid")}: ${plural(errors, "error")}${tail}.`;
}
