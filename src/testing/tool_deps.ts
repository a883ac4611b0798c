// Helpers for the fixed tools' unit tests: deps over a fake admin API that records every call
// (never imported by the product).

import { type Config, RESULT_CHARS } from "../config/config.ts";
import type { Session, SessionInfo } from "../node/session.ts";
import type { Application, CallOptions } from "../mero/mod.ts";
import type { AbiManifest } from "../apps/abi_format.ts";
import type { AppsService, ToolDeps } from "../tools/deps.ts";
import type { Tool, ToolCall } from "../tools/tool.ts";
import type { ToolResult } from "../answer/result.ts";
import { isInputRequiredResult } from "@modelcontextprotocol/server";
import { createListeners } from "../lib/listeners.ts";

/** The session facts of a node found through CALIMERO_NODE_URL. */
export const CONNECTED: SessionInfo = {
  url: "http://127.0.0.1:2528",
  nodeName: null,
  discoverySource: "env",
  authMode: "none",
};

/** A tool context carrying a well-formed traceparent, so tests can see it reach the node calls. */
export const ctx: ToolCall = {
  signal: new AbortController().signal,
  traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  progress: () => {},
  confirm: () => Promise.resolve(null),
};

/** A tool as a unit test drives it: every answer a result; a question for the person fails the test. */
export type TestTool = Omit<Tool, "call"> & {
  call(args: Record<string, unknown>, call: ToolCall): Promise<ToolResult>;
};

/** `tool` as a {@link TestTool}. */
export function testTool(tool: Tool): TestTool {
  return {
    ...tool,
    async call(args, call) {
      const answer = await tool.call(args, call);
      if (isInputRequiredResult(answer)) {
        throw new Error(`${tool.name} asked a question instead of answering`);
      }
      return answer as ToolResult;
    },
  };
}

/**
 * A tool context made of the parts a test gives; every other part throws when used, naming itself, so a test
 * cannot lean on a part it did not set up.
 */
export function toolContext(
  parts: Partial<ToolDeps> & { apps?: Partial<AppsService> },
): ToolDeps {
  const missing = (part: string) =>
    new Proxy({}, {
      get(_target, prop) {
        if (prop === "then") return undefined;
        throw new Error(`this test's tools use ${part}.${String(prop)}, which it did not set up`);
      },
    });
  return {
    config: missing("config") as ToolDeps["config"],
    node: missing("node") as ToolDeps["node"],
    catalog: missing("catalog") as ToolDeps["catalog"],
    key: {} as CryptoKey,
    events: {
      status: () => ({ connected: false, watched: 0, reconnects: 0, lastProblem: null }),
    } as ToolDeps["events"],
    watchedApps: new WeakMap(),
    generated: () => ({ tools: [], names: new Map(), status: "on", notAnswering: [] }),
    fixed: () => [],
    guidesShown: new Set(),
    selected: createListeners("the contexts select_app binds"),
    channelStatus: () => null,
    notAnswering: () => [],
    ...parts,
    apps: { ...(missing("apps") as AppsService), ...parts.apps },
  };
}

/** A fake admin API: method name → implementation. */
export type Admin = Record<string, (...args: unknown[]) => unknown>;

/** Options of {@link fakeDeps}. */
export interface FakeOptions {
  /** The one installed app `apps.resolve` knows (by id or package). */
  app?: Application;
  /** More installed apps `apps.resolve` knows, by id only. */
  others?: Application[];
  /** What `apps.abi` answers. */
  manifest?: AbiManifest;
  connect?: () => Promise<SessionInfo>;
  /** The result budget in characters (default the product's). */
  resultChars?: number;
}

/** Deps over a fake admin API; `calls` records each admin call's arguments. */
export function fakeDeps(admin: Admin, options: FakeOptions = {}) {
  const calls: { method: string; args: unknown[] }[] = [];
  const recorded = new Proxy(admin, {
    get: (target, method: string) => (...args: unknown[]) => {
      calls.push({ method, args });
      const fn = target[method];
      // As the real client: every call is a promise, a failure a rejected one.
      if (!fn) return Promise.reject(new Error(`unexpected admin.${method}`));
      try {
        return Promise.resolve(fn(...args));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  });
  const deps = toolContext({
    config: {
      toolsets: ["core", "blobs", "governance", "apps"],
      scannedNodes: [{ name: "default", url: "http://localhost:2528" }],
      nodes: [],
      allowRemoteHttp: false,
      probePorts: [],
      nodeName: null,
      registryUrl: null,
      nodeTimeoutMs: 1000,
      resultChars: options.resultChars ?? RESULT_CHARS,
    } as unknown as Config,
    node: {
      admin: recorded,
      info: () => CONNECTED,
      connect: options.connect ?? (() => Promise.resolve(CONNECTED)),
    } as unknown as Session,
    apps: {
      list: async (o?: CallOptions) =>
        ((await recorded.listApplications(o)) as { apps: Application[] }).apps,
      resolve: (name: string) => {
        // The one app by id or package, any other only by id (as the catalog resolves an exact id first).
        const found = options.app && [options.app.id, options.app.package].includes(name)
          ? options.app
          : options.others?.find((other) => other.id === name);
        return found
          ? Promise.resolve(found)
          : Promise.reject(new Error(`Application "${name}" is not installed.`));
      },
      abi: () =>
        options.manifest
          ? Promise.resolve(options.manifest)
          : Promise.reject(new Error("This test's tools read no ABI.")),
      refresh: () => Promise.resolve(),
    },
    notAnswering: () => ["app com.x.broken: ABI not valid"],
  });
  return { deps, calls };
}

/** The tool named `name` among `tools`; fails the test when it is missing. */
export function pick(tools: Tool[], name: string): TestTool {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return testTool(found);
}
