// The shape of a doctor report: sections of findings, each with a status. Shared by the checks that fill it
// and the renderer that prints it.

import type { Status } from "../report.ts";

/** One finding: a status, what it is about, and what was found (or what to do). */
export interface DoctorLine {
  status: Status;
  label: string;
  detail: string;
}

/** A titled group of findings. */
export interface DoctorSection {
  title: string;
  lines: DoctorLine[];
}

/** What `doctor` found; `works` is false when any line failed. Holds no secret, so it may be printed as JSON. */
export interface DoctorReport {
  version: string;
  works: boolean;
  sections: DoctorSection[];
  /** The failed lines' details, in order: why the server would not work. */
  failures: string[];
}
