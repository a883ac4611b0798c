// The ABI loader: one place that fetches, validates and caches each unit's manifest.
// Cached by `<bytecode blob id>:<service>` (content-addressed, so never invalidated) and only once valid;
// a node without the ABI route (bodyless 404), or a token the route refuses (403 permission_denied: core maps
// it to admin only, crates/auth/src/auth/permissions/validator.rs), is served from the unit's bytecode blob
// (`blob:get` suffices): the wasm's `calimero_abi_v1` section, or for a `.mpk` bundle the ABI file it carries.

import { type AbiManifest, UnsupportedAbiVersionError } from "./abi_format.ts";
import { parseAbiManifest } from "./abi_parse.ts";
import { type AdminApi, type Application, type CallOptions, NodeHttpError } from "../mero/mod.ts";
import { appUnits, chooseService, packageOrId } from "./resolve.ts";
import { ABI_SECTION_NAME, readAbiCustomSection } from "./wasm_abi.ts";
import {
  isGzip,
  MAX_ARTIFACT_BYTES,
  MAX_MANIFEST_BYTES,
  readBundleEntry,
  unitArtifacts,
} from "./bundle.ts";
import { describeError } from "../answer/errors.ts";
import type { AbiOrigin, AbiStore } from "./abi_store.ts";
import { blobIdOf } from "../primitives/blob_hash.ts";
import { stringifyJson } from "../lib/json.ts";
import { log } from "../lib/log.ts";

/** The node calls the loader makes. */
export type AbiAdmin = Pick<AdminApi, "getApplicationAbi" | "getBlob">;

/** Loads the manifest of one unit of an installed app, cached by content. */
export interface AbiLoader {
  /**
   * The unit's validated manifest: from the cache, else from the node's ABI route, else (route
   * missing) from the bytecode blob's custom section. Throws AbiLoadError naming app, service and why.
   */
  load(app: Application, service: string | null, opts?: CallOptions): Promise<AbiManifest>;
  /** The cached manifest of the unit, without a request (for the catalog's "nothing changed" poll). */
  cached(app: Application, service: string | null): AbiManifest | undefined;
  /** Node requests made so far (ABI route and blob downloads). */
  requestCount(): number;
}

/** A unit whose manifest could not be loaded; the message says why and what to do. */
export class AbiLoadError extends Error {
  override name = "AbiLoadError";
  /** The application id. */
  readonly appId: string;
  /** The unit's service, or null. */
  readonly service: string | null;

  /** The node's bytes were read and checked, and the ABI in them is what failed: asking again cannot help. */
  readonly settled: boolean;

  constructor(
    app: Application,
    service: string | null,
    message: string,
    cause?: unknown,
    settled = false,
  ) {
    super(message, { cause });
    this.appId = app.id;
    this.service = service;
    this.settled = settled;
  }
}

/**
 * Creates a loader over the node's admin API; one per process, so every tool shares its cache. A claimed ABI read
 * back from disk (see abi_store.ts) serves at once and is asked of the node again in the background; when the node
 * now answers otherwise (what was kept came from another process at the same address), the node's answer replaces
 * it and `onRevised` runs (the catalog rebuilds the app's tools).
 */
export function createAbiLoader(
  admin: AbiAdmin,
  store?: AbiStore,
  onRevised?: () => void,
): AbiLoader {
  const cache = new Map<string, AbiManifest>();
  // The node's settled answer for a unit it cannot serve (a manifest of a format major we do not read, or a
  // 400 "no usable ABI"): the blob id is content-addressed, so asking on every poll would only repeat it.
  // It is asked again after RETRY_FAILED_MS; a malformed answer is never remembered (it may be a glitch).
  const failed = new Map<string, { error: unknown; at: number }>();
  const inflight = new Map<string, Promise<AbiManifest>>();
  let requests = 0;

  /** What is kept on disk for `key`, unless it is the same document as `kept` (already there). */
  async function keep(key: string, document: unknown, origin: AbiOrigin, kept: unknown) {
    if (kept !== undefined && stringifyJson(kept) === stringifyJson(document)) return;
    await store?.write(key, document, origin);
  }

  async function fetchManifest(
    app: Application,
    service: string | null,
    blobId: string,
    opts: CallOptions | undefined,
    kept?: unknown,
  ): Promise<AbiManifest> {
    let answer: unknown;
    try {
      requests++;
      answer = await admin.getApplicationAbi(app.id, service ?? undefined, opts);
    } catch (error) {
      if (!isMissingRoute(error) && !isPermissionDenied(error) && !isRefusedAbi(error)) {
        throw routeFailure(app, service, error);
      }
      return await fromBytecode(app, service, blobId, error as NodeHttpError, opts, kept);
    }
    try {
      const manifest = parseAbiManifest(answer);
      await keep(abiKey(blobId, service), answer, "claimed", kept);
      return manifest;
    } catch (error) {
      // A newer format names its own remedy (upgrade mero-mcp); a malformed one points at the app's build.
      const next = error instanceof UnsupportedAbiVersionError
        ? ""
        : " Rebuild the app with a current toolchain, or upgrade mero-mcp.";
      throw new AbiLoadError(
        app,
        service,
        `${unitName(app, service)} has an ABI the node served that cannot be used: ${
          reason(error)
        }${next}`,
        error,
      );
    }
  }

  async function fromBytecode(
    app: Application,
    service: string | null,
    blobId: string,
    routeError: NodeHttpError,
    opts: CallOptions | undefined,
    kept?: unknown,
  ): Promise<AbiManifest> {
    let verified = false;
    try {
      requests++;
      const bytes = await admin.getBlob(blobId, opts);
      // The bytes are checked against the id the node gave them: an ABI from them is then true of that id anywhere.
      const computed = await blobIdOf(bytes);
      if (computed !== blobId) {
        throw new Error(`the node served bytes whose blob id is ${computed}, not ${blobId}.`);
      }
      verified = true;
      const document = isGzip(bytes) ? await abiFromBundle(bytes, service) : abiFromWasm(bytes);
      const manifest = parseAbiManifest(document);
      await keep(abiKey(blobId, service), document, "verified", kept);
      return manifest;
    } catch (error) {
      const why = isPermissionDenied(routeError)
        ? `the node gives its ABI route to admin tokens only (${routeError.method} ${routeError.path} ` +
          "answered 403 permission_denied)"
        : isRefusedAbi(routeError)
        ? `the node refused the app's embedded ABI (${routeError.method} ${routeError.path} answered 400: ` +
          "absent or malformed)"
        : `the node has no ABI route (${routeError.method} ${routeError.path} answered 404 without a body)`;
      const next = isPermissionDenied(routeError) && isPermissionDenied(error)
        ? "The token lacks both permissions: use an admin token, or one that may read blobs (blob:get)."
        : isPermissionDenied(routeError)
        ? "Use an admin token, or reinstall the app from a build that embeds its ABI."
        : isRefusedAbi(routeError)
        ? "Rebuild the app with a current toolchain (cargo mero build) and reinstall it."
        : "Upgrade the node, or reinstall the app from a build that embeds its ABI.";
      throw new AbiLoadError(
        app,
        service,
        `Cannot read the ABI of ${
          unitName(app, service)
        }: ${why}, and reading it from the bytecode blob ` +
          `"${blobId}" failed: ${reason(error)} ${next}`,
        error,
        // Content-addressed bytes whose ABI does not parse parse no better on the next poll.
        verified,
      );
    }
  }

  /**
   * The unit's ABI as kept on disk, validated again (a file that fails validation is removed): a verified one, else
   * a claimed one, which is then asked of the node again in the background.
   */
  async function fromStore(
    app: Application,
    service: string | null,
    blobId: string,
  ): Promise<AbiManifest | null> {
    if (!store) return null;
    const key = abiKey(blobId, service);
    for (const origin of ["verified", "claimed"] as const) {
      const document = await store.read(key, origin);
      if (document === null) continue;
      try {
        const manifest = parseAbiManifest(document);
        if (origin === "claimed") void revalidate(app, service, blobId, document);
        return manifest;
      } catch {
        await store.remove(key, origin);
      }
    }
    return null;
  }

  /** Asks the node for a claimed ABI read back from disk; its answer, when it differs, replaces the kept one. */
  async function revalidate(
    app: Application,
    service: string | null,
    blobId: string,
    kept: unknown,
  ): Promise<void> {
    try {
      const fresh = await fetchManifest(app, service, blobId, undefined, kept);
      const key = abiKey(blobId, service);
      const held = cache.get(key);
      if (held === undefined || stringifyJson(held) === stringifyJson(fresh)) return;
      log.warn(
        `the ABI of ${
          unitName(app, service)
        } kept from an earlier session differs from what the node answers now; the node's answer replaces it.`,
      );
      cache.set(key, fresh);
      onRevised?.();
    } catch (error) {
      log.debug(
        `the kept ABI of ${unitName(app, service)} was not checked again: ${reason(error)}`,
      );
    }
  }

  return {
    load(app, service, opts) {
      let key: { key: string; blobId: string };
      try {
        key = cacheKey(app, service);
      } catch (error) {
        return Promise.reject(error);
      }
      const hit = cache.get(key.key);
      if (hit !== undefined) return Promise.resolve(hit);
      const failure = failed.get(key.key);
      if (failure !== undefined && now() - failure.at < RETRY_FAILED_MS) {
        return Promise.reject(failure.error);
      }
      const running = inflight.get(key.key);
      if (running !== undefined) return running;
      const flight = fromStore(app, service, key.blobId)
        .then((stored) => stored ?? fetchManifest(app, service, key.blobId, opts))
        .then((manifest) => {
          cache.set(key.key, manifest);
          failed.delete(key.key);
          return manifest;
        }, (error) => {
          if (answeredForGood(error)) failed.set(key.key, { error, at: now() });
          throw error;
        })
        .finally(() => inflight.delete(key.key));
      inflight.set(key.key, flight);
      return flight;
    },
    cached(app, service) {
      const unit = appUnits(app).find((u) => u.service === service);
      return unit === undefined ? undefined : cache.get(abiKey(unit.bytecodeBlobId, service));
    },
    requestCount: () => requests,
  };
}

/** What a unit's ABI is cached by, in memory and on disk: its bytecode blob id (content-addressed) and service. */
function abiKey(blobId: string, service: string | null): string {
  return `${blobId}:${service ?? ""}`;
}

/** How long a unit whose ABI the node could not serve is left alone before the next try. */
export const RETRY_FAILED_MS = 5 * 60_000;

/** Monotonic milliseconds (a seam for nothing but readability). */
function now(): number {
  return performance.now();
}

/**
 * Whether a failure is the node's settled answer about this content (not a transport failure, a 5xx, or an
 * app that is gone), so that repeating the request would only repeat the answer.
 */
function answeredForGood(error: unknown): boolean {
  if (error instanceof AbiLoadError && error.settled) return true;
  const cause = error instanceof AbiLoadError ? error.cause : error;
  if (cause instanceof NodeHttpError) {
    return cause.status === 400 || cause.status === 422 || isPermissionDenied(cause);
  }
  return cause instanceof UnsupportedAbiVersionError;
}

/** The unit's cache key; throws when the app has no such unit (unknown service, or one is needed). */
function cacheKey(app: Application, service: string | null): { key: string; blobId: string } {
  let blobId: string;
  try {
    const chosen = chooseService(app, service);
    blobId = appUnits(app).find((u) => u.service === chosen)!.bytecodeBlobId;
  } catch (error) {
    throw new AbiLoadError(app, service, (error as Error).message);
  }
  return { key: abiKey(blobId, service), blobId };
}

/** The wasm's `calimero_abi_v1` custom section, as JSON. */
function abiFromWasm(bytes: Uint8Array): unknown {
  const json = readAbiCustomSection(bytes);
  if (json === null || json === undefined) {
    throw new Error(`the bytecode has no ${ABI_SECTION_NAME} custom section.`);
  }
  return json;
}

/** A `.mpk` bundle's ABI for the unit: the ABI file its manifest names, else its wasm's custom section. */
async function abiFromBundle(archive: Uint8Array, service: string | null): Promise<unknown> {
  const manifestBytes = await readBundleEntry(archive, "manifest.json", MAX_MANIFEST_BYTES);
  if (manifestBytes === null) throw new Error("the bundle has no manifest.json.");
  const artifacts = unitArtifacts(jsonOf(manifestBytes, "manifest.json"), service);
  const path = artifacts.abi ?? artifacts.wasm;
  if (path === null) throw new Error("the bundle's manifest names neither an ABI nor a wasm file.");
  const bytes = await readBundleEntry(archive, path, MAX_ARTIFACT_BYTES);
  if (bytes === null) throw new Error(`the bundle has no ${path}, which its manifest names.`);
  return artifacts.abi !== null ? jsonOf(bytes, path) : abiFromWasm(bytes);
}

function jsonOf(bytes: Uint8Array, name: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new Error(`the bundle's ${name} is not valid JSON (${(error as Error).message}).`);
  }
}

/** A 403 the auth guard gave for a route the token's permissions do not cover. */
function isPermissionDenied(error: unknown): boolean {
  return error instanceof NodeHttpError && error.status === 403 &&
    error.authError === "permission_denied";
}

/**
 * The node's 400 for an embedded ABI it will not serve: absent, or failing core's validator, which also insists on
 * canonical order (methods and events sorted by name: crates/wasm-abi/src/validate.rs, embed.rs). Real
 * builds with unsorted methods exist (the kv-store merobox's own workflows install), and order is no matter of
 * safety: the bytecode is read and checked here instead, as for a node without the route.
 */
function isRefusedAbi(error: unknown): boolean {
  return error instanceof NodeHttpError && error.status === 400 &&
    /no usable embedded ABI/.test(error.body);
}

/** A bodyless 404: the node predates the ABI route (a 404 with a body means an unknown app). */
function isMissingRoute(error: unknown): error is NodeHttpError {
  return error instanceof NodeHttpError && error.status === 404 && error.body.trim() === "";
}

function routeFailure(app: Application, service: string | null, error: unknown): AbiLoadError {
  const gone = error instanceof NodeHttpError && error.status === 404;
  const next = gone ? " The app may have been uninstalled: list the applications again." : "";
  return new AbiLoadError(
    app,
    service,
    `Cannot read the ABI of ${unitName(app, service)}: ${reason(error)}${next}`,
    error,
  );
}

function unitName(app: Application, service: string | null): string {
  const pkg = packageOrId(app);
  const who = pkg === app.id ? `application ${app.id}` : `${pkg} (application ${app.id})`;
  return service === null ? who : `${who}, service "${service}"`;
}

function reason(error: unknown): string {
  // A node error is translated once, in errors.ts (a JSON body's message, not the body).
  const text = error instanceof NodeHttpError
    ? (error.status > 0 ? `HTTP ${error.status}: ${describeError(error)}` : describeError(error))
    : error instanceof Error
    ? error.message
    : String(error);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
