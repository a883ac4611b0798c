// The text form of a `doctor` report: one titled block per section, one status line per finding, then the
// verdict and, when the server would not work, the reasons.

import type { DoctorReport } from "./report.ts";
import { paint, statusLine, type Style } from "../report.ts";
import { escapeControls } from "../../lib/text.ts";

const MAX_LABEL = 40;

/** Renders the report as text (ANSI colour only when `style.color`). Ends with a newline. */
export function renderDoctor(report: DoctorReport, style: Style): string {
  const out: string[] = [
    `${paint(style, "bold", "mero-mcp doctor")} (mero-mcp ${report.version})`,
  ];
  for (const section of report.sections) {
    out.push("", paint(style, "bold", section.title));
    const width = Math.min(MAX_LABEL, Math.max(0, ...section.lines.map((l) => l.label.length)));
    for (const line of section.lines) {
      out.push(statusLine(style, line.status, line.label, line.detail, width));
    }
  }
  out.push("");
  if (report.works) {
    out.push(`${paint(style, "green", "Result")}: the server would work.`);
  } else {
    out.push(`${paint(style, "red", "Result")}: the server would not work:`);
    for (const failure of report.failures) out.push(`  - ${escapeControls(failure)}`);
  }
  return out.join("\n") + "\n";
}
