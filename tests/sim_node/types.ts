// The public types of the simulated node: options, faults, app definitions and the method
// implementations sample apps provide. `mod.ts` re-exports them; other modules import from here.

/** The sample apps the simulated node can preinstall (each is `com.calimero.<name>`). */
export type SampleAppName =
  | "kv-store"
  | "mero-issue-tracker"
  | "mero-drive-docs"
  | "bignum"
  | "broken-abi"
  | "garbled-abi"
  | "abi-coverage";

/** Embedded-auth settings: present means the node serves `/auth/*` and guards its API. */
export interface SimAuthOptions {
  username: string;
  password: string;
  /** Access-token lifetime; default 3600. */
  accessTtlSeconds?: number;
  /** Refresh-token lifetime; default 30 days. */
  refreshTtlSeconds?: number;
  /** Failed logins before `/auth/token` answers 429; default 5. */
  maxFailedLogins?: number;
  /** The `Retry-After` of that 429, and how long the lockout lasts; default 30. */
  lockoutSeconds?: number;
}

/** How to start a simulated node. */
/**
 * The two core generations the simulated node follows:
 * - "051f0848": core's master at 2026-08-22, the newest full history: a membership, authority or lookup refusal is
 *   an untyped eyre error, a bare 500 "Internal server error" (crates/server/src/admin/service.rs `parse_api_error`);
 *   a blob whose `hash` does not match is a 500 and stays stored.
 * - "newer": core's default branch after it (public file versions; research node-fidelity-3 §1): `parse_api_error`
 *   types the refusals (`membership_refusal_status` and its neighbours: 403 not permitted, 404 not found, 409 the
 *   group as it stands, 503/504 not yet) with core's own message, a blob upload is refused 400 on a `hash` mismatch
 *   and 413 when too large, client keys may be scoped to contexts and groups, and capability bit 9 exists.
 */
export type CoreGeneration = "051f0848" | "newer";

export interface SimNodeOptions {
  /** 0 = a random free port (default). */
  port?: number;
  /** Default "127.0.0.1". */
  hostname?: string;
  /** Serve the admin API and JSON-RPC under this path, e.g. "/node1" (`/auth` and `/sse` stay at the root, as in core); other paths get a bare 404. */
  pathPrefix?: string;
  /** Embedded auth mode; absent = proxy mode (no checks). */
  auth?: SimAuthOptions;
  /** Default false: the ABI route drops `doc`, `returns_doc`, `destructive`, `idempotent`. */
  keepAbiDocs?: boolean;
  /** Default true; false = the ABI route answers a bare 404 (the wasm blob is the only source). */
  abiRoute?: boolean;
  /**
   * Default true: `install-application` refuses non-http(s) URLs and loopback/private hosts with core's 400
   * (since 0.11.0-rc.10); false = an older node that downloads from any URL (a localhost registry works).
   */
  installUrlChecks?: boolean;
  /**
   * Which core the node follows (`CoreGeneration`); default `MERO_SIM_CORE` from the environment, else "051f0848".
   * It decides how refusals answer and the few routes that changed (research node-fidelity-3 §1).
   */
  core?: CoreGeneration;
  /** Preinstalled sample apps; default "all". Pass [] for an empty node. */
  apps?: SampleAppName[] | "all";
  /**
   * `GET /identity`: by default 404 until the node takes part in a namespace (creates or joins one), as core;
   * true = from the start; false = 404 until `setIdentity(true)`.
   */
  withIdentity?: boolean;
  /** Seed of every node-local id (contexts, groups, identity); default unique per node in a process. */
  seed?: string;
  /** How long join_context looks for an unknown context's group before its 500; default core's 30 s. */
  joinLookupMs?: number;
  /** How long a namespace join takes to answer; default 2 s, as a real merod (0: at once). */
  namespaceJoinMs?: number;
  /** How long a context followed after join_namespace stays `Uninitialized`; default 10 s (core's sync tick). */
  syncDelayMs?: number;
}

/** A fault injected into every request (or those matching a scope) until cleared. */
export type Fault =
  | { kind: "down" }
  | { kind: "slow"; delayMs: number }
  | { kind: "hang" }
  | { kind: "status"; status: number }
  | { kind: "malformed" }
  | { kind: "truncated" }
  | { kind: "huge"; bytes: number }
  | { kind: "flapping"; every: number }
  | { kind: "missingRoute"; path: string };

/** Narrows a fault to some requests; `down` ignores it (the listener is closed). */
export interface FaultScope {
  /** Only requests whose path (without prefix) starts with this. */
  pathPrefix?: string;
  /** Only requests with this HTTP method. */
  method?: string;
  /** Clear the fault by itself after this many affected requests. */
  times?: number;
}

/** What a method implementation sees besides its arguments. */
export interface CallEnv {
  /** The context the call runs in. */
  contextId: string;
  /** This context's app state; mutate it freely (rolled back when the call fails). */
  state: Record<string, unknown>;
  /** The caller's public key in this context (base58). */
  executor: string;
  /** The caller's account id (64 hex). */
  executorAccount: string;
  /** Milliseconds since the epoch. */
  now: number;
  /**
   * Emits one of the app's events (calimero-sdk `emit!`): `kind` is the variant name, `data` its payload, sent as
   * the JSON bytes of the payload, none for a unit variant (crates/sdk/macros/src/event.rs).
   */
  emit(kind: string, data?: unknown): void;
}

/** A method implementation: arguments by parameter name (bigint for integers above 2^53). */
export type MethodImpl = (args: Record<string, unknown>, env: CallEnv) => unknown;

/** One ABI-bearing unit: a whole app without services, or one service. */
export interface UnitSpec {
  /** The manifest object, raw text (embedded as is: may be invalid JSON), or null for none. */
  abi: unknown;
  /** Implementations by method name; a declared method without one answers a default value. */
  methods?: Record<string, MethodImpl>;
}

/** An application to install directly (`SimNode.install`) or to upgrade to. */
export interface CustomApp {
  /** Package name; absent = an app known only by its id (no package, version or signer). */
  package?: string;
  version?: string;
  /** `did:key:…`; default derived from the package. The app id hashes (package, signer). */
  signer?: string;
  /** Display name for the default metadata. */
  name?: string;
  description?: string;
  /** The bundle manifest's `metadata.icon` (core crates/bundle/src/lib.rs keeps it in the stored metadata). */
  icon?: string;
  /** Markdown guide for the default metadata. */
  guide?: string;
  /** Replaces the default metadata: an object (sent as UTF-8 JSON) or raw bytes (may be invalid). */
  metadata?: Record<string, unknown> | Uint8Array | number[];
  /** The app's single unit (ignored when `services` is set). */
  abi?: unknown;
  methods?: Record<string, MethodImpl>;
  /** Several services, each with its own ABI and bytecode blob, in this order. */
  services?: Record<string, UnitSpec>;
  /** The record's `source`; default a `calimero-sim://` URL. */
  source?: string;
  /**
   * Installed as a raw `.wasm` through the admin API: recorded with this package and version (core's placeholders
   * `unknown` and `0.0.0` unless a path install named them), no signer, and an id hashed from the bytecode blob,
   * size, source and metadata (core crates/node/primitives/src/client/application/install.rs).
   */
  raw?: { package: string; version: string };
  /**
   * Installed from a `.mpk` bundle (default: when `services` is set, since only bundles have services): the
   * archive becomes the bytecode blob and the metadata comes from its manifest, without `guide` or `metadata`.
   */
  bundle?: boolean;
}

/** What an install or upgrade produced. */
export interface InstallResult {
  applicationId: string;
  /** The app-level bytecode blob id (a bundle's archive; the single unit's wasm for a raw wasm app). */
  bytecode: string;
  /** Bytecode blob id per service (empty for an app without services). */
  services: Record<string, string>;
}

/** A JSON-RPC error the node reports: `{ type, data? }`. */
export interface RpcErrorBody {
  type: string;
  data?: unknown;
}

/** One logged request. */
export interface RequestLogEntry {
  method: string;
  /** Path without the node's prefix and without the query string. */
  path: string;
  /** `Date.now()` when it arrived. */
  at: number;
  /** Set when the path was outside the node's prefix (then `path` is the raw path; bare 404). */
  outsidePrefix?: true;
  /** The W3C `traceparent` header, when the request carried one. */
  traceparent?: string;
}
