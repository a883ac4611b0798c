// What every tool is built from — fixed, app and generated alike: the process's services and the little state the
// tools share, one object with one name per thing. Built once by the runtime, never per connection.

import type { Config } from "../config/config.ts";
import type { Session } from "../node/session.ts";
import type { Application, CallOptions } from "../mero/mod.ts";
import type { AbiManifest } from "../apps/abi_format.ts";
import type { Catalog } from "../apps/catalog.ts";
import type { ToolTarget } from "../apps/names.ts";
import type { EventHub, Watch } from "../events/hub.ts";
import type { Tool } from "./tool.ts";
import type { Listeners } from "../lib/listeners.ts";

/** The installed apps, as the tools reach them. */
export interface AppsService {
  /** The installed apps as the node lists them now, with each app's services (read from its own record). */
  list(o?: CallOptions): Promise<Application[]>;
  /** Any app name (id, package, trailing segment, display name) → the installed app; one catalog refresh on a miss. */
  resolve(name: string): Promise<Application>;
  /** The parsed, validated ABI of one unit of an app (cached by bytecode blob id and service). */
  abi(app: Application, service: string | null): Promise<AbiManifest>;
  /** Refreshes the catalog now; install/uninstall await it so new tools exist when their result arrives. */
  refresh(): Promise<void>;
}

/** What generated tools exist now, and why some do not. */
export interface GeneratedTools {
  tools: Tool[];
  /** name → (application id, service, method); never parsed back from names. */
  names: ReadonlyMap<string, ToolTarget>;
  /**
   * "on", or why there are none: the `apps` toolset is off, the `--max-tools` budget is exceeded, or this is a named
   * node besides the server's own (per-method tools are the default node's alone).
   */
  status: "on" | "toolset-off" | "over-budget" | "other-node";
  notAnswering: string[];
}

/** The app a watched context runs, as the tools last learnt it: what its events are decoded with. */
export interface WatchedApp {
  applicationId: string;
  service: string | null;
}

/** The one context every tool receives. */
export interface ToolDeps {
  config: Config;
  /** The lazy session in front of every node request: `node.admin.*`, `node.rpc.execute`, `node.info()`. */
  node: Session;
  /** The installed app units, their ABIs and guides, as last read. */
  catalog: Catalog;
  apps: AppsService;
  /** The key app handles are signed with. */
  key: CryptoKey;
  /** The node's event stream and the watched contexts. */
  events: EventHub;
  /** The app each watched context runs, by watch; forgotten when the context's app changes. */
  watchedApps: WeakMap<Watch, WatchedApp>;
  /** The generated tools as last built. */
  generated(): GeneratedTools;
  /** The fixed tools this server lists (toolsets and read-only mode applied): what find_methods also searches. */
  fixed(): readonly Tool[];
  /** Guide URIs already shown in full by select_app in this process. */
  guidesShown: Set<string>;
  /** What did not answer at the last catalog build. */
  notAnswering(): string[];
  /** Told of each context select_app binds and watches (the channel's `selected` follows it). */
  selected: Listeners<[contextId: string]>;
  /** Where the channel the person opted into stands (node_status); null without one. */
  channelStatus(): ChannelStatus | null;
}

/** The channel's state as node_status shows it. */
export interface ChannelStatus {
  /** The contexts it follows. */
  contexts: string[];
  /** The contexts named that it does not follow yet, with why. */
  waiting: { name: string; why: string }[];
  /** Notifications sent so far. */
  notifications: number;
}
