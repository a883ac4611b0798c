// What the fixed tools are built from: process-wide services, never per connection. Its own module so the
// toolsets and the registry that collects them do not import each other.

import type { Config } from "../node/config.ts";
import type { Session } from "../node/session.ts";
import type { Application, CallOptions } from "../mero/client.ts";
import type { AbiManifest } from "../apps/abi_format.ts";

/** What the fixed tools are built from: process-wide services, never per connection. */
export interface FixedToolDeps {
  config: Config;
  /** The lazy session: `session.admin.*`, `session.rpc.execute`, `session.connect()`, `session.info()`. */
  session: Session;
  apps: {
    /** The installed apps as the node lists them now, with each app's services (read from its own record). */
    list(o?: CallOptions): Promise<Application[]>;
    /** Resolves any app name (id, package, trailing segment, display name) to the installed application (apps.md §2); one catalog refresh on a miss. */
    resolve(name: string): Promise<Application>;
    /** The parsed, validated ABI of one unit of an app (cached by bytecode blob id and service). */
    abi(app: Application, service: string | null): Promise<AbiManifest>;
    /** Refreshes the catalog now; install/uninstall await it so new tools exist when their result arrives. */
    refresh(): Promise<void>;
  };
  /** What did not answer at the last catalog build (runtime.md §7). */
  notAnswering(): string[];
  /** The event stream's state, for node_status (absent: not shown). */
  events?(): {
    connected: boolean;
    watched: number;
    reconnects: number;
    lastProblem: string | null;
  };
}
