// The app tools, always on, in listing order: find_methods to search, describe_app to plan, select_app to act, call and call_many to reach
// any method, wait_for_events to see what others do, run_script for code mode. Each is in its own module; they share unit.ts and watch.ts.

import type { ToolDeps } from "../deps.ts";
import type { Tool } from "../tool.ts";
import { describeApp } from "./describe_app.ts";
import { selectApp } from "./select_app.ts";
import { callMany, callTool } from "./call.ts";
import { waitForEvents } from "./wait_for_events.ts";
import { findMethods } from "./find_methods.ts";
import { runScriptTool } from "./run_script.ts";

/** find_methods, describe_app, select_app, call, call_many and wait_for_events. */
export function appTools(deps: ToolDeps): Tool[] {
  return [
    findMethods(deps),
    describeApp(deps),
    selectApp(deps),
    callTool(deps),
    callMany(deps),
    waitForEvents(deps),
    runScriptTool(deps),
  ];
}
