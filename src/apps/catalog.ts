// The catalog: installed app units (one per application and service), process-wide, sorted, fingerprinted.
// Refreshes are serialised; only a changed fingerprint is published, as one step.

import type { Application } from "../mero/mod.ts";
import type { AbiManifest } from "./abi_format.ts";
import { appUnits, appVersion, byCodeUnits, displayName, packageOrId } from "./resolve.ts";
import { decodeMetadata, guideHash } from "./guide.ts";
import { appIcon, type Icon } from "./icon.ts";
import { guideUri } from "../answer/uris.ts";
import { describeError } from "../answer/errors.ts";
import { mapLimit } from "../lib/pool.ts";
import { stripControls } from "../lib/text.ts";
import { log } from "../lib/log.ts";
import { createListeners } from "../lib/listeners.ts";

/** One (application, service) pair with everything tools are built from. */
export interface CatalogUnit {
  app: Application;
  applicationId: string;
  /** The package name, or the id when the app has none. */
  package: string;
  version: string | null;
  service: string | null;
  /** How many services the app has (0 when it has none). */
  serviceCount: number;
  bytecodeBlobId: string;
  manifest: AbiManifest;
  displayName: string;
  signerId: string | null;
  guide: string | null;
  guideHash: string;
  guideUri: string;
  /** The app's icon, when its metadata has one that passes (src/apps/icon.ts). */
  icon: Icon | null;
}

/** The catalog at one moment. */
export interface CatalogState {
  /** Every installed application, also those whose ABI failed. */
  apps: Application[];
  /** The units whose ABI loaded, sorted by package, application id, service. */
  units: CatalogUnit[];
  /** What did not answer while building it: apps whose ABI failed, a node that did not answer. */
  notAnswering: string[];
  /** Why each unit left out (its ABI failed) is missing, by application id and service. */
  leftOut: ReadonlyMap<string, string>;
  /** Identity of the unit list; equal fingerprints mean nothing to re-register. */
  fingerprint: string;
  /** Whether this state came from the node (false until the first successful read). */
  loaded: boolean;
}

/** What the catalog needs: the application list and the ABI loader. */
export interface CatalogDeps {
  /** The installed apps; the same array object again means the same list (nothing is re-read then). */
  listApplications(): Promise<Application[]>;
  loadAbi(app: Application, service: string | null): Promise<AbiManifest>;
  /** Poll interval in seconds (CALIMERO_MCP_POLL_SECONDS); 0: no poll, read only when asked. */
  pollSeconds: number;
}

/** The process-wide catalog. */
export interface Catalog {
  current(): CatalogState;
  /**
   * Listens for every new state whose units, notAnswering or loaded flag changed; a refresh resolves only after its
   * listeners settled (install_application relies on it: the new tools exist when its result arrives).
   */
  subscribe(listener: (state: CatalogState) => void | Promise<void>): () => void;
  /**
   * Reads the node now; concurrent callers share the queued refresh. Never throws. `reload`: every unit's ABI is
   * looked up again even when the node's list is unchanged (the loader revised one it had kept).
   */
  refresh(reload?: boolean): Promise<CatalogState>;
  /** Refreshes when the catalog has never loaded and no refresh is under way (a first node success). */
  ensureLoaded(): void;
  /** Starts the first load once and waits for it at most `budgetMs`. */
  warmUp(budgetMs: number): Promise<void>;
  /** Stops the poll (tests, shutdown). */
  stop(): void;
}

const EMPTY: CatalogState = {
  apps: [],
  units: [],
  notAnswering: [],
  leftOut: new Map(),
  fingerprint: "",
  loaded: false,
};

/** Creates the catalog; nothing is read until the first `warmUp` or `refresh`. */
export function createCatalog(deps: CatalogDeps): Catalog {
  let state = EMPTY;
  let running: Promise<CatalogState> | null = null;
  let queued: Promise<CatalogState> | null = null;
  let first: Promise<CatalogState> | null = null;
  let poll: ReturnType<typeof setInterval> | undefined;
  const changes = createListeners<[CatalogState]>("the catalog's change");

  // pollSeconds 0: read only when asked (a watch process, which must cost nothing while quiet).
  const armPoll = () => {
    if (poll !== undefined || deps.pollSeconds <= 0) return;
    poll = setInterval(() => void refresh(), deps.pollSeconds * 1000);
  };

  let reload = false;
  const run = async (): Promise<CatalogState> => {
    const forced = reload;
    reload = false;
    const next = await build(deps, state, forced);
    log.debug(
      `catalog built: loaded=${next.loaded} units=${next.units.length} notAnswering=${next.notAnswering.length}`,
    );
    const changed = next.fingerprint !== state.fingerprint ||
      next.notAnswering.join("\n") !== state.notAnswering.join("\n") ||
      next.loaded !== state.loaded;
    state = next;
    if (next.loaded) armPoll();
    if (changed) await changes.emit(next);
    return next;
  };

  // Serialised: one refresh runs; at most one more waits, and every caller meanwhile shares it.
  const refresh = (again = false): Promise<CatalogState> => {
    if (again) reload = true;
    if (queued) return queued;
    if (!running) {
      running = run().finally(() => running = null);
      return running;
    }
    queued = running.catch(() => {}).then(() => {
      queued = null;
      running = run().finally(() => running = null);
      return running;
    });
    return queued;
  };

  return {
    current: () => state,
    subscribe: changes.subscribe,
    refresh,
    ensureLoaded() {
      if (!state.loaded && !running && !queued) void refresh();
    },
    async warmUp(budgetMs) {
      first ??= refresh();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        first,
        new Promise((resolve) => timer = setTimeout(resolve, budgetMs)),
      ]);
      clearTimeout(timer);
    },
    stop() {
      if (poll !== undefined) clearInterval(poll);
      poll = undefined;
    },
  };
}

/** The most ABI loads in flight while a catalog is built. */
export const ABI_CONCURRENCY = 8;

/** Reads the application list and every unit's ABI (cached by content), keeping the old units if the node fails. */
async function build(
  deps: CatalogDeps,
  previous: CatalogState,
  reload: boolean,
): Promise<CatalogState> {
  let apps: Application[];
  try {
    apps = await deps.listApplications();
  } catch (error) {
    const reason = `node: ${describeError(error)}`;
    // Said once per reason, not on every poll while the node stays away.
    if (previous.notAnswering[0] !== reason) log.warn(`catalog not refreshed: ${reason}`);
    return { ...previous, notAnswering: [reason] };
  }
  // The same list as last time (the same object: the node's answer was byte-for-byte the same) with every unit
  // loaded: nothing to read or build. A build that left units out is retried in full.
  if (
    apps === previous.apps && previous.loaded && previous.notAnswering.length === 0 && !reload
  ) {
    return previous;
  }
  const notAnswering: string[] = [];
  const leftOut = new Map<string, string>();
  const before = new Map(
    previous.units.map((u) => [unitKey(u.app, u.service, u.bytecodeBlobId), u]),
  );
  // At most ABI_CONCURRENCY loads at once: a node with thousands of apps must not open thousands of sockets.
  const pairs = apps.flatMap((app) => appUnits(app).map((unit) => ({ app, unit })));
  const units = (await mapLimit(pairs, ABI_CONCURRENCY, async ({ app, unit }) => {
    try {
      const manifest = await deps.loadAbi(app, unit.service);
      // An idle poll finds every unit as it was: reuse it rather than decode and hash again.
      const same = before.get(unitKey(app, unit.service, unit.bytecodeBlobId));
      if (same && same.manifest === manifest && sameBytes(same.app.metadata, app.metadata)) {
        return same;
      }
      return await toUnit(app, unit.service, unit.bytecodeBlobId, manifest);
    } catch (error) {
      const name = packageOrId(app) + (unit.service ? ` (service ${unit.service})` : "");
      const why = describeError(error);
      const reason = `app ${name}: ${why}`;
      // Said when the reason appears or changes, not on every poll while the app stays broken.
      const key = `${app.id}\0${unit.service ?? ""}`;
      if (previous.leftOut.get(key) !== why) log.warn(`left out of the tool list: ${reason}`);
      notAnswering.push(reason);
      leftOut.set(key, why);
      return null;
    }
  })).filter((u): u is CatalogUnit => u !== null);
  units.sort((a, b) =>
    byCodeUnits(a.package, b.package) || byCodeUnits(a.applicationId, b.applicationId) ||
    byCodeUnits(a.service ?? "", b.service ?? "")
  );
  notAnswering.sort(byCodeUnits);
  return { apps, units, notAnswering, leftOut, fingerprint: fingerprintOf(units), loaded: true };
}

/** The most of a guide kept: longer ones are cut, with a line saying so. */
export const MAX_GUIDE_LENGTH = 256 * 1024;

/** An app's guide as served: without control characters (newlines and tabs kept), at most MAX_GUIDE_LENGTH. */
function boundedGuide(text: string): string {
  const clean = stripControls(text);
  if (clean.length <= MAX_GUIDE_LENGTH) return clean;
  return `${
    clean.slice(0, MAX_GUIDE_LENGTH)
  }\n\n[The guide is cut here: mero-mcp serves at most ${MAX_GUIDE_LENGTH} characters.]`;
}

function unitKey(app: Application, service: string | null, blob: string): string {
  return `${app.id}\0${service ?? ""}\0${blob}\0${app.version ?? ""}\0${app.signer_id ?? ""}`;
}

function sameBytes(a: number[], b: number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

async function toUnit(
  app: Application,
  service: string | null,
  bytecodeBlobId: string,
  manifest: AbiManifest,
): Promise<CatalogUnit> {
  const metadata = decodeMetadata(app.metadata);
  const guide = typeof metadata?.guide === "string" && metadata.guide.trim() !== ""
    ? boundedGuide(metadata.guide)
    : null;
  const version = appVersion(app);
  return {
    app,
    applicationId: app.id,
    package: packageOrId(app),
    version,
    service,
    serviceCount: Object.keys(app.services ?? {}).length,
    bytecodeBlobId,
    manifest,
    displayName: displayName(app),
    signerId: app.signer_id ?? null,
    guide,
    guideHash: await guideHash(guide),
    guideUri: guideUri(app.id, version),
    icon: appIcon(metadata),
  };
}

/** The loaded unit of an application and service (null: an app without services), if the catalog has it. */
export function unitOf(
  state: CatalogState,
  applicationId: string,
  service: string | null,
): CatalogUnit | undefined {
  return state.units.find((u) => u.applicationId === applicationId && u.service === service);
}

/**
 * Why an installed app's unit is missing from the catalog (its ABI failed), as the last build recorded it;
 * without a service, the first of the app's units that failed.
 */
export function leftOutReason(
  state: CatalogState,
  app: Application,
  service?: string | null,
): string | undefined {
  if (service !== undefined) return state.leftOut.get(`${app.id}\0${service ?? ""}`);
  for (const [key, why] of state.leftOut) if (key.startsWith(`${app.id}\0`)) return why;
  return undefined;
}

/** (application id, bytecode blob id, manifest, version, service, guide hash) of every unit. */
function fingerprintOf(units: CatalogUnit[]): string {
  const identity = (u: CatalogUnit) => [
    u.applicationId,
    u.bytecodeBlobId,
    manifestSerial(u.manifest),
    u.version,
    u.service,
    u.guideHash,
  ];
  return JSON.stringify(units.map(identity));
}

const serials = new WeakMap<object, number>();
let nextSerial = 0;
/**
 * A number naming one manifest object while it lives. A blob's ABI is fixed by its content, except where the loader
 * revises a kept one the node now answers otherwise: what was built from the old object is built anew.
 */
export function manifestSerial(manifest: object): number {
  let serial = serials.get(manifest);
  if (serial === undefined) serials.set(manifest, serial = nextSerial++);
  return serial;
}
