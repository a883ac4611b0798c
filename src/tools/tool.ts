// What a tool is: a plain definition (name, text, schemas, annotations) plus a `call` that never throws.
// Fixed tools are declared with zod through `defineTool`; generated tools build the same shape from an ABI.

import { z } from "zod";
import type { CallOptions } from "../mero/mod.ts";
import type { Icon } from "../apps/icon.ts";
import {
  type Ask,
  type CallAnswer,
  errorResult,
  failureResult,
  type ToolResult,
} from "../answer/result.ts";
import fixedSchemas from "./fixed_schemas.json" with { type: "json" };

/** All four hints, always set explicitly: clients gate approvals on them. */
export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Per-call facilities handed to a tool with its arguments. */
export interface ToolCall {
  signal: AbortSignal;
  /** The W3C traceparent from the request's `_meta`, when well-formed. */
  traceparent?: string;
  /** Sends an MCP progress notification when the request carried a progressToken; a no-op otherwise. */
  progress(progress: number, message?: string, total?: number): void;
  /**
   * Asks the person before something that cannot be undone: call it once the call has resolved its exact target
   * (ids, as the node holds them now) and passed every check that may refuse it, right before the node is asked.
   * Null: go ahead. Otherwise the answer to return instead, with nothing sent: the question (which the client
   * answers and retries), or the person's no. The answer binds `target`, so name in it everything the act depends on.
   */
  confirm: Ask;
  /**
   * Runs one app call made on the tool's behalf (a script's) when the server's pacing of app calls gives it a turn,
   * like a direct call; `refused` when too many wait or the call was cancelled meanwhile. Absent: run at once.
   */
  pace?: <T>(call: () => Promise<T>) => Promise<T | { refused: string }>;
}

export type { CallAnswer };

/** Which switchable group a tool belongs to; `core` and `app` are always on. */
export type ToolGroup = "core" | "blobs" | "governance" | "app" | "generated";

/** A tool as the server lists and calls it. */
export interface Tool {
  name: string;
  title: string;
  description: string;
  group: ToolGroup;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: Annotations;
  /** The app's icon (generated tools of an app that has one). */
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** A fixed tool's zod input (never listed): what its precomputed inputSchema is checked against. */
  input?: z.ZodObject;
  /** It returns an app's data, as large as the app makes it: the server runs few such calls at once. */
  appData?: boolean;
  /**
   * It runs a script: the server runs few at once, under a bound of their own, and each app call a script makes is
   * paced like any other ({@link ToolCall.pace}), so a waiting script holds no app call's turn.
   */
  script?: boolean;
  /** It may legitimately return up to the whole result budget: listed with `anthropic/maxResultSizeChars`. */
  large?: boolean;
  /**
   * When it asks the person before it acts, in a few words ("when it adds an admin"), for a tool that asks though
   * its annotations do not say destructive, or only sometimes. A destructive tool without it always asks. For the
   * tools table (docs/tools.md); never listed.
   */
  asks?: string;
  /**
   * Words a person uses for what it does that its name does not hold ("subgroups", "ungroup"): find_methods weighs
   * them as it weighs an app method's app name. Never listed.
   */
  keywords?: readonly string[];
  /** A generated tool's app unit (never listed): what `doctor` counts tools by. */
  app?: { applicationId: string; service: string | null; version: string | null };
  /**
   * Validates the arguments and runs; failures come back as `isError` results, never as throws. A call that cannot
   * be undone asks through {@link ToolCall.confirm} first, and may answer with its question.
   */
  call(args: Record<string, unknown>, call: ToolCall): Promise<CallAnswer>;
}

/** The entry `tools/list` carries for a tool. */
export function listEntry(tool: Tool): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  };
  if (tool.outputSchema) entry.outputSchema = tool.outputSchema;
  if (tool.icons) entry.icons = tool.icons;
  if (tool._meta) entry._meta = tool._meta;
  return entry;
}

/** The `_meta` key hosts that defer tools read to keep one loaded (Claude Code). */
export const ALWAYS_LOAD = "anthropic/alwaysLoad";

/** The `_meta` key that tells those hosts how many characters a tool's result may have before it is set aside. */
export const MAX_RESULT_CHARS = "anthropic/maxResultSizeChars";

/**
 * The tool as listed for a result budget of `chars`: a tool that may return that much says so in `_meta`, so the
 * host does not set a result aside that this server already kept within the budget.
 */
export function withResultBudget(tool: Tool, chars: number): Tool {
  if (!tool.large) return tool;
  return { ...tool, _meta: { ...tool._meta, [MAX_RESULT_CHARS]: chars } };
}

/** A type a property of a structured result has: a JSON Schema type name, or `any`. */
type OutputType = "string" | "integer" | "boolean" | "array" | "object" | "any";

/**
 * A small output schema: an object with these properties (a `?` suffix: may also be null), requiring `required`.
 * Kept loose (no item shapes, extra properties allowed): it costs every agent bytes on every list.
 */
export function output(
  properties: Record<string, `${OutputType}${"" | "?"}`>,
  required: string[] = [],
): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(properties)) {
    const nullable = spec.endsWith("?");
    const type = nullable ? spec.slice(0, -1) : spec;
    props[key] = type === "any" ? {} : { type: nullable ? [type, "null"] : type };
  }
  return {
    type: "object",
    properties: props,
    ...(required.length > 0 ? { required } : {}),
  };
}

/** A fixed tool written with a zod input schema. */
export interface ToolSpec<S extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  group: ToolGroup;
  input: S;
  /**
   * The JSON Schema of the structuredContent every successful call returns (build it with `output`): set for every
   * tool whose answer is JSON, which then returns through `jsonResult`.
   */
  output?: Record<string, unknown>;
  annotations: Annotations;
  /**
   * One of the few tools an agent needs to find its way: hosts that defer tools behind a search keep it loaded
   * (`anthropic/alwaysLoad`).
   */
  alwaysLoad?: boolean;
  /** See {@link Tool.appData}. */
  appData?: boolean;
  /** See {@link Tool.script}. */
  script?: boolean;
  /** See {@link Tool.large}. */
  large?: boolean;
  /** See {@link Tool.keywords}. */
  keywords?: readonly string[];
  /** See {@link Tool.asks}. */
  asks?: string;
  /** Runs the tool; a destructive one asks through {@link confirmed} once its target is resolved. */
  run(args: z.infer<S>, call: ToolCall): Promise<CallAnswer>;
}

/**
 * The fixed tools' input schemas as `inputJsonSchema` computes them, by tool name, written ahead of time
 * (`deno task snapshots`; fixed_schemas_test.ts fails when one differs): converting 30 zod schemas took 5–15 ms
 * of every cold start. A fixed tool's input therefore never depends on the config.
 */
const PRECOMPUTED = fixedSchemas as Record<string, Record<string, unknown>>;

/** Turns a zod-declared tool into a {@link Tool}: JSON Schema computed once, arguments validated per call. */
export function defineTool<S extends z.ZodObject>(spec: ToolSpec<S>): Tool {
  const inputSchema = PRECOMPUTED[spec.name] ?? inputJsonSchema(spec.input);
  const closed = spec.input.strict();
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    group: spec.group,
    inputSchema,
    ...(spec.output ? { outputSchema: spec.output } : {}),
    input: spec.input,
    annotations: spec.annotations,
    ...(spec.alwaysLoad ? { _meta: { [ALWAYS_LOAD]: true } } : {}),
    ...(spec.appData ? { appData: true } : {}),
    ...(spec.script ? { script: true } : {}),
    ...(spec.large ? { large: true } : {}),
    ...(spec.keywords ? { keywords: spec.keywords } : {}),
    ...(spec.asks ? { asks: spec.asks } : {}),
    async call(args, call) {
      const { args: named, note } = oneName(withoutNulls(args), spec.input.shape);
      // Closed, as the schema says (`additionalProperties: false`): a key this tool does not take is refused with
      // its name, not dropped without a word (and OpenAI's strict mode needs every object closed).
      const parsed = closed.safeParse(named);
      if (!parsed.success) {
        return errorResult(new Error(describeIssues(spec.name, parsed.error, spec.input.shape)));
      }
      try {
        const result = await spec.run(parsed.data as z.infer<S>, call);
        const answered = result as ToolResult;
        return note === null || !Array.isArray(answered.content) || answered.isError
          ? result
          : { ...answered, content: [...answered.content, { type: "text", text: note }] };
      } catch (error) {
        return failureResult(spec.name, error);
      }
    },
  };
}

/**
 * Runs `act` once the person accepted `question` about `target` (the resolved ids the act uses), or returns what to
 * answer instead: the one way a tool asks before what cannot be undone (see {@link ToolCall.confirm}).
 */
export async function confirmed(
  call: ToolCall,
  question: string,
  target: unknown,
  act: () => Promise<ToolResult>,
): Promise<CallAnswer> {
  return await call.confirm(question, target) ?? await act();
}

/**
 * One thing, two names: app tools say `app`, fixed tools `application`. An agent that writes the other one is
 * understood, and told the name this tool uses, rather than refused (or, worse, having the argument dropped).
 */
const SYNONYMS: [string, string][] = [
  ["app", "application"],
  ["application", "app"],
  ["contextId", "context"],
  ["context", "contextId"],
];

function oneName(
  args: Record<string, unknown>,
  shape: Record<string, unknown>,
): { args: Record<string, unknown>; note: string | null } {
  for (const [given, meant] of SYNONYMS) {
    if (given in args && !(meant in args) && meant in shape && !(given in shape)) {
      const { [given]: value, ...rest } = args;
      return {
        args: { ...rest, [meant]: value },
        note: `Note: this tool calls it \`${meant}\`; \`${given}\` was taken as that.`,
      };
    }
  }
  return { args, note: null };
}

/** Many hosts send null for an optional argument they leave out: null means omitted here. */
function withoutNulls(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
}

/** A zod input as the JSON Schema tools/list advertises (2020-12, input side, no `$schema`). */
export function inputJsonSchema(input: z.ZodObject): Record<string, unknown> {
  const inputSchema = z.toJSONSchema(input, {
    target: "draft-2020-12",
    io: "input",
  }) as Record<
    string,
    unknown
  >;
  delete inputSchema.$schema;
  // Every root is closed: the call refuses a key the tool does not take (`closed` above), and strict-mode
  // clients (OpenAI's) want every object closed.
  inputSchema.additionalProperties = false;
  return inputSchema;
}

/** One sentence per bad argument, naming it. */
function describeIssues(
  toolName: string,
  error: z.ZodError,
  shape: Record<string, unknown>,
): string {
  const parts = error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return `it takes no ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    }
    if (issue.code === "invalid_type" && issue.input === undefined && issue.path.length === 1) {
      return `${String(issue.path[0])} is missing`;
    }
    const path = issue.path.length ? issue.path.join(".") : "arguments";
    return `${path}: ${issue.message}`;
  });
  const names = Object.keys(shape);
  const takes = names.length === 0
    ? "it takes no arguments"
    : `its arguments are ${names.join(", ")}`;
  return `Invalid arguments for ${toolName}: ${parts.join("; ")} (${takes}).`;
}

/** Every node call of one tool call carries the request's abort signal and trace context. */
export function callOptions(call: ToolCall, timeoutMs?: number): CallOptions {
  const options: CallOptions = { signal: call.signal };
  if (call.traceparent !== undefined) options.traceparent = call.traceparent;
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  return options;
}

/** How often a long operation reports progress. */
export const PROGRESS_INTERVAL_MS = 5_000;

/**
 * Runs `work` and, until it settles, sends an MCP progress notification every interval (elapsed
 * seconds as progress), so clients that honour progress keep waiting past their own timeout.
 */
export async function whileWaiting<T>(
  call: ToolCall,
  what: string,
  work: Promise<T>,
  intervalMs = PROGRESS_INTERVAL_MS,
): Promise<T> {
  const started = Date.now();
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    call.progress(seconds, `${what}: still waiting for the node (${seconds} s)`);
  }, intervalMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

/** Read-only, non-destructive, idempotent, closed-world: the common case for listing tools. */
export const READ_ONLY: Annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** A write that adds something: not read-only, not destructive, not idempotent. */
export const WRITE: Annotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

/** A write that sets something: setting the same value twice changes nothing more. */
export const SET: Annotations = { ...WRITE, idempotentHint: true };

/** A write that removes something. */
export const DESTRUCTIVE: Annotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
