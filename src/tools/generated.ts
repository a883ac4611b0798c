// Generated tools: one per method of every catalog unit, named by src/apps/names.ts, built as data and executed
// through src/calls/invoke.ts. Built once per catalog change, never per connection, by the builder the runtime holds.

import type { Config } from "../config/config.ts";
import type { AbiMethod } from "../apps/abi_format.ts";
import { isReadOnly, signatureLine } from "../apps/abi_format.ts";
import { type CatalogState, type CatalogUnit, manifestSerial } from "../apps/catalog.ts";
import { assignToolNames, type NamingUnit } from "../apps/names.ts";
import { methodInputSchema } from "../apps/schema.ts";
import { AppResolutionError, resolveApplication } from "../apps/resolve.ts";
import { invoke, type InvokeDeps } from "../calls/invoke.ts";
import { refusalResult } from "../calls/gate.ts";
import { log } from "../lib/log.ts";
import { errorResult } from "../answer/result.ts";
import { oneLine } from "../lib/text.ts";
import { type Annotations, type Tool, withResultBudget } from "./tool.ts";
import type { GeneratedTools } from "./deps.ts";

const DOC_LIMIT = 300;
const YIELD_EVERY = 50;
/** Builds generated tools for one runtime, reusing the last build's tools whose definition did not move. */
export interface ToolBuilder {
  /** The tools for the catalog's units under the config's toolsets, allowlist and `--max-tools` budget. */
  build(state: Pick<CatalogState, "units" | "apps">, fixedCount: number): Promise<GeneratedTools>;
  /** The last build's tools (none before the first). */
  current(): GeneratedTools;
}

/** A builder whose tools call through `deps`: the tools it reuses were built with the same deps. */
export function createToolBuilder(deps: InvokeDeps, config: Config): ToolBuilder {
  /** The tools of the last build, by everything a tool's definition depends on: a change rebuilds only what moved. */
  let previous = new Map<string, Tool>();
  let current: GeneratedTools = { tools: [], names: new Map(), status: "on", notAnswering: [] };
  const warnedAppHandle = new Set<string>();
  /** Whether a method gets a tool: not `init`, and not a method with its own `app_handle` parameter. */
  const generates = (unit: CatalogUnit, method: AbiMethod) => {
    if (method.name === "init") return false;
    if (config.readOnly && !isReadOnly(method)) return false; // read-only mode: views only
    if (!ownsAppHandle(method)) return true;
    const key = `${unit.applicationId}:${unit.service}:${method.name}`;
    if (!warnedAppHandle.has(key)) {
      warnedAppHandle.add(key);
      log.info(
        `${unit.package}.${method.name} declares its own app_handle parameter: reachable only through "call".`,
      );
    }
    return false;
  };
  return {
    async build(state, fixedCount) {
      const built = await buildTools(state, config, fixedCount, deps, previous, generates);
      previous = built.reuse;
      current = built.generated;
      return current;
    },
    current: () => current,
  };
}

async function buildTools(
  { units, apps }: Pick<CatalogState, "units" | "apps">,
  config: Config,
  fixedCount: number,
  deps: InvokeDeps,
  previous: ReadonlyMap<string, Tool>,
  generates: (unit: CatalogUnit, method: AbiMethod) => boolean,
): Promise<{ generated: GeneratedTools; reuse: Map<string, Tool> }> {
  const notAnswering: string[] = [];
  const none = (status: GeneratedTools["status"]) => ({
    generated: { tools: [], names: new Map(), status, notAnswering },
    reuse: new Map(previous),
  });
  if (!config.toolsets.includes("apps")) return none("toolset-off");
  let chosen = units;
  if (config.apps) {
    const allowed = new Set<string>();
    for (const name of config.apps) {
      try {
        allowed.add(resolveApplication(apps, name).id);
      } catch (error) {
        const why = error instanceof AppResolutionError && error.kind !== "not-found"
          ? error.message
          : "no installed app has that name";
        notAnswering.push(`--apps "${name}": ${why}`);
      }
    }
    chosen = units.filter((u) => allowed.has(u.applicationId));
  }

  const byUnit = new Map<string, CatalogUnit>();
  const naming: NamingUnit[] = chosen.map((unit) => {
    byUnit.set(unitKey(unit.applicationId, unit.service), unit);
    return {
      applicationId: unit.applicationId,
      package: unit.package === unit.applicationId ? null : unit.package,
      name: unit.displayName === unit.package ? null : unit.displayName,
      service: unit.service,
      serviceCount: unit.serviceCount,
      methods: unit.manifest.methods.filter((m) => generates(unit, m)).map((m) => m.name),
    };
  });
  const names = await assignToolNames(naming);
  if (config.maxTools !== null && fixedCount + names.size > config.maxTools) {
    notAnswering.push(
      `generated tools: ${names.size} app tools plus ${fixedCount} fixed tools exceed --max-tools ${config.maxTools}; none are registered. Use "call" (with select_app) to reach every method.`,
    );
    return none("over-budget");
  }
  const tools: { tool: Tool; unit: string }[] = [];
  const reuse = new Map<string, Tool>();
  const failed = new Map<string, string>();
  let built = 0;
  for (const [name, target] of names) {
    const unitId = unitKey(target.applicationId, target.service);
    if (failed.has(unitId)) continue;
    const unit = byUnit.get(unitId)!;
    const key = [
      name,
      unit.applicationId,
      unit.bytecodeBlobId,
      manifestSerial(unit.manifest), // the same blob's ABI, revised (a kept one the node answered otherwise)
      unit.version,
      unit.displayName,
      unit.signerId,
      unit.icon?.src,
    ]
      .join("\0");
    let tool = previous.get(key);
    if (!tool) {
      const method = unit.manifest.methods.find((m) => m.name === target.method)!;
      try {
        tool = methodTool(name, unit, method, deps, config);
      } catch (error) {
        // One app's unusable ABI (a schema that cannot be built: too deep, too large) leaves out that unit
        // only, and says why; every other app keeps its tools.
        const why = error instanceof RangeError
          ? "its types nest too deeply to build a schema"
          : (error as Error).message;
        failed.set(unitId, `method "${method.name}": ${why}`);
        continue;
      }
      // Building thousands of schemas must not hold the event loop (initialize's budget, other requests).
      if (++built % YIELD_EVERY === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    reuse.set(key, tool);
    tools.push({ tool, unit: unitId });
  }
  for (const [unitId, why] of failed) {
    const unit = byUnit.get(unitId)!;
    const name = unit.package + (unit.service ? ` (service ${unit.service})` : "");
    log.warn(`left out of the tool list: app ${name}: its tools cannot be built: ${why}`);
    notAnswering.push(`app ${name}: its tools cannot be built (${why}); reach it through "call".`);
  }
  const kept = tools.filter((t) => !failed.has(t.unit)).map((t) => t.tool);
  const keptNames = new Map(
    [...names].filter(([, t]) => !failed.has(unitKey(t.applicationId, t.service))),
  );
  return { generated: { tools: kept, names: keptNames, status: "on", notAnswering }, reuse };
}

/** The app as a title names it: its metadata name, else its package's last segment (`mero-issue-tracker`). */
function shortName(unit: CatalogUnit): string {
  if (unit.displayName !== unit.package) return unit.displayName;
  return unit.package.slice(unit.package.lastIndexOf(".") + 1);
}

function unitKey(applicationId: string, service: string | null): string {
  return `${applicationId}\0${service ?? ""}`;
}

/** A method with its own `app_handle` parameter gets no tool (the server's would shadow it): `call` reaches it. */
function ownsAppHandle(method: AbiMethod): boolean {
  return method.params.some((p) => p.name === "app_handle");
}

/** The annotations a method's ABI implies: a view is read-only and idempotent; the rest as the ABI declares. */
export function methodAnnotations(method: AbiMethod): Annotations {
  const readOnly = isReadOnly(method);
  return {
    readOnlyHint: readOnly,
    destructiveHint: method.destructive ?? false,
    idempotentHint: method.idempotent ?? readOnly,
    openWorldHint: false,
  };
}

/** "get_entries" → "Get entries"; "setValue" → "Set value". */
function methodWords(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_\-\s]+/g, " ").trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The method's doc (first paragraph, cut short) then its signature line. */
export function methodDescription(method: AbiMethod): string {
  const doc = method.doc?.split(/\n\s*\n/)[0].replace(/\s+/g, " ").trim() ?? "";
  const short = doc.length > DOC_LIMIT ? `${doc.slice(0, DOC_LIMIT - 1)}…` : doc;
  return short ? `${short}\n${signatureLine(method)}` : signatureLine(method);
}

/** The input schema: `app_handle`, `context` (unless the method has its own), then the method's parameters. */
function methodToolInput(unit: CatalogUnit, method: AbiMethod): Record<string, unknown> {
  const schema = methodInputSchema(unit.manifest, method).json as Record<string, unknown>;
  const own = (schema.properties ?? {}) as Record<string, unknown>;
  // What app_handle and context are is said once (the server's instructions, select_app), not in every tool.
  const properties: Record<string, unknown> = { app_handle: { type: "string" } };
  if (!("context" in own)) properties.context = { type: "string" };
  return { ...schema, type: "object", properties: { ...properties, ...own } };
}

function methodTool(
  name: string,
  unit: CatalogUnit,
  method: AbiMethod,
  deps: InvokeDeps,
  config: Pick<Config, "readOnly" | "resultChars">,
): Tool {
  const ownContext = method.params.some((p) => p.name === "context");
  return withResultBudget({
    name,
    title: `${methodWords(method.name)} (${shortName(unit)})`,
    description: methodDescription(method),
    group: "generated",
    inputSchema: methodToolInput(unit, method),
    // No outputSchema: a declared schema makes structuredContent required, and hosts then show the model that
    // instead of the text (Claude Code, VS Code), dropping the line that says whose data it is, doubling every
    // value on the wire and leaving a value over the result budget no way to be cut (docs/tools.md, "Results that fit").
    annotations: methodAnnotations(method),
    ...(unit.icon ? { icons: [unit.icon] } : {}),
    appData: true,
    large: true,
    // Only what a client can act on: the signer is the same for every tool of an app (list_applications has it
    // once) and the intent is the annotations' readOnlyHint.
    _meta: {
      "calimero/app": {
        package: unit.package,
        version: unit.version,
        ...(unit.service ? { service: unit.service } : {}),
      },
    },
    app: { applicationId: unit.applicationId, service: unit.service, version: unit.version },
    // The list is built from the catalog, which may be behind the node (an upgrade not yet seen): the call judges
    // the app as installed now, read-only mode and the question included, before anything is sent.
    async call(args, ctx) {
      const extra = Object.keys(args).filter((key) =>
        key !== "app_handle" && key !== "context" && !method.params.some((p) => p.name === key)
      );
      if (extra.length > 0) {
        return errorResult(
          new Error(
            `${name} takes no ${
              extra.slice(0, 5).map((k) => `"${oneLine(k, 60)}"`).join(", ")
            }: its arguments are app_handle, ${ownContext ? "" : "context, "}and ${
              method.params.length ? method.params.map((p) => p.name).join(", ") : "nothing else"
            }. Signature: ${signatureLine(method)}`,
          ),
        );
      }
      const { app_handle, context, ...rest } = args;
      const methodArgs = ownContext ? { ...rest, context } : rest;
      const outcome = await invoke(deps, {
        applicationId: unit.applicationId,
        service: unit.service,
        method: method.name,
        args: methodArgs,
        handle: typeof app_handle === "string" ? app_handle : undefined,
        context: !ownContext && typeof context === "string" ? context : undefined,
        signal: ctx.signal,
        traceparent: ctx.traceparent,
        readOnly: config.readOnly,
        confirm: ctx.confirm,
      });
      return outcome.ok ? outcome.result : refusalResult(outcome);
    },
  }, config.resultChars);
}
