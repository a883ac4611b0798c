// Installing, upgrading and removing apps. The application id hashes (package, signer), so an
// upgrade keeps the id; each unit's bytecode blob is a wasm module whose id hashes its bytes, so a
// new version or ABI gets a new blob id. A bundle (an app with services, or one installed from a `.mpk`)
// is stored as core stores it: the archive as the app's bytecode blob, metadata from its manifest (bundle.ts).

import { base58Id, blobIdOf, didKey } from "./ids.ts";
import { jsonBytes, stringifyExact } from "./json.ts";
import type { InstalledApp, NodeState, Unit } from "./state.ts";
import type { CustomApp, InstallResult, UnitSpec } from "./types.ts";
import { ABI_SECTION, wasmModule } from "./wasm.ts";
import { buildBundle, bundleMetadata, ZERO_BLOB_ID } from "./bundle.ts";

function buildUnit(app: CustomApp, service: string | null, spec: UnitSpec, signer?: string): Unit {
  const abiText = typeof spec.abi === "string"
    ? spec.abi
    : spec.abi === undefined || spec.abi === null
    ? null
    : stringifyExact(spec.abi);
  const sections = abiText === null ? [] : [{ name: ABI_SECTION, payload: abiText }];
  const stamp = { package: app.package ?? null, version: app.version ?? null, service, signer };
  const wasm = wasmModule([...sections, { name: "calimero_sim", payload: stringifyExact(stamp) }]);
  const bytecode = blobIdOf(wasm);
  return {
    service,
    abiText,
    methods: spec.methods ?? {},
    bytecode,
    compiled: base58Id(`compiled:${bytecode}`),
    wasm,
  };
}

function metadataBytes(app: CustomApp): Uint8Array {
  if (app.metadata instanceof Uint8Array) return app.metadata;
  if (Array.isArray(app.metadata)) return new Uint8Array(app.metadata);
  if (app.metadata) return new Uint8Array(jsonBytes(app.metadata));
  const fields: Record<string, unknown> = {};
  if (app.name !== undefined) fields.name = app.name;
  if (app.description !== undefined) fields.description = app.description;
  if (app.icon !== undefined) fields.icon = app.icon;
  if (app.guide !== undefined) fields.guide = app.guide;
  return new Uint8Array(Object.keys(fields).length ? jsonBytes(fields) : []);
}

/** Builds the installed form of an app definition (no state change). */
export function buildApp(spec: CustomApp): InstalledApp {
  if (spec.raw) return buildRawWasm(spec, spec.raw);
  const signer = spec.package ? spec.signer ?? didKey(spec.package) : spec.signer;
  const units = spec.services
    ? Object.entries(spec.services).map(([name, unit]) => buildUnit(spec, name, unit, signer))
    : [buildUnit(spec, null, { abi: spec.abi ?? null, methods: spec.methods }, signer)];
  if (units.length === 0) throw new Error("An app with `services` needs at least one service.");
  const isBundle = spec.bundle ?? spec.services !== undefined;
  if (isBundle && !spec.package) throw new Error("A bundle always has a package.");
  const version = spec.package ? spec.version ?? "0.1.0" : spec.version;
  const bundleSpec = {
    package: spec.package!,
    version: version!,
    name: spec.name,
    description: spec.description,
    icon: spec.icon,
  };
  const archive = isBundle ? buildBundle(bundleSpec, units) : null;
  const blob = archive
    ? { bytecode: blobIdOf(archive), compiled: ZERO_BLOB_ID }
    : { bytecode: units[0].bytecode, compiled: units[0].compiled };
  const id = spec.package
    ? base58Id(`app:${spec.package}\0${signer}`)
    : base58Id(`app-without-package:${units[0].bytecode}`);
  return {
    id,
    spec,
    package: spec.package,
    version,
    signerId: signer,
    source: spec.source ?? `calimero-sim://${spec.package ?? id}/${spec.version ?? "0.1.0"}`,
    metadata: archive ? bundleMetadata(bundleSpec) : metadataBytes(spec),
    size: archive ? archive.length : units.reduce((n, u) => n + u.wasm.length, 0),
    units,
    hasServices: spec.services !== undefined,
    blob,
    archive,
  };
}

/** A raw `.wasm` as core records it (install.rs install_raw_wasm): see {@link CustomApp.raw}. */
function buildRawWasm(spec: CustomApp, raw: { package: string; version: string }): InstalledApp {
  const unit = buildUnit(spec, null, { abi: spec.abi ?? null, methods: spec.methods }, undefined);
  const metadata = metadataBytes(spec);
  const source = spec.source ?? `calimero-sim://raw/${unit.bytecode}`;
  const id = base58Id(
    `raw-wasm:${unit.bytecode}:${unit.wasm.length}:${source}:${[...metadata].join(",")}`,
  );
  return {
    id,
    spec,
    package: raw.package,
    version: raw.version,
    signerId: undefined,
    source,
    metadata,
    size: unit.wasm.length,
    units: [unit],
    hasServices: false,
    blob: { bytecode: unit.bytecode, compiled: unit.compiled },
    archive: null,
  };
}

/** Installs (or replaces in place: same package and signer) an app and stores its blobs. */
export function installApp(state: NodeState, spec: CustomApp): InstallResult {
  const app = buildApp(spec);
  for (const unit of app.units) {
    state.blobs.set(unit.bytecode, { bytes: unit.wasm });
    state.blobs.set(unit.compiled, {
      bytes: new TextEncoder().encode(`precompiled:${unit.bytecode}`),
    });
  }
  if (app.archive) state.blobs.set(app.blob.bytecode, { bytes: app.archive });
  state.apps.set(app.id, app);
  return {
    applicationId: app.id,
    bytecode: app.blob.bytecode,
    services: Object.fromEntries(
      app.units.filter((u) => u.service !== null).map((u) => [u.service, u.bytecode]),
    ),
  };
}

/** Upgrades an installed app: the definition merged with `next`; package and signer must stay. */
export function upgradeApp(
  state: NodeState,
  applicationId: string,
  next: Partial<CustomApp>,
): InstallResult {
  const current = state.apps.get(applicationId);
  if (!current) throw new Error(`No app "${applicationId}" is installed on the simulated node.`);
  const merged: CustomApp = { ...current.spec, ...next };
  if (next.services) delete merged.abi;
  if (next.abi !== undefined && !next.services) delete merged.services;
  const result = installApp(state, merged);
  if (result.applicationId !== applicationId) {
    state.apps.delete(result.applicationId);
    throw new Error(
      "An upgrade must keep the package and signer (the application id hashes both).",
    );
  }
  return result;
}

const records = new WeakMap<InstalledApp, Record<string, unknown>>();

/**
 * The application record as `GET /applications` lists it: without `services`, which the node's list never sets
 * (core crates/node/primitives/src/client/application/query.rs, list_applications).
 */
export function listedRecord(app: InstalledApp): Record<string, unknown> {
  let listed = listedRecords.get(app);
  if (!listed) {
    const { services: _services, ...rest } = appRecord(app);
    listedRecords.set(app, listed = rest);
  }
  return listed;
}

const listedRecords = new WeakMap<InstalledApp, Record<string, unknown>>();

/**
 * The application record as `GET /applications/:id` answers it, services included (core
 * crates/node/primitives/src/client/application.rs, get_application). Built once per installed version.
 */
export function appRecord(app: InstalledApp): Record<string, unknown> {
  const cached = records.get(app);
  if (cached) return cached;
  const record: Record<string, unknown> = {
    id: app.id,
    blob: { ...app.blob },
    size: app.size,
    source: app.source,
    metadata: [...app.metadata],
  };
  if (app.signerId !== undefined) record.signer_id = app.signerId;
  if (app.package !== undefined) record.package = app.package;
  if (app.version !== undefined) record.version = app.version;
  if (app.hasServices) {
    record.services = Object.fromEntries(
      app.units.map((u) => [u.service, { bytecode: u.bytecode, compiled: u.compiled }]),
    );
  }
  records.set(app, record);
  return record;
}

/** The id of an installed app whose bytecode or compiled blob is `blobId`, if any. */
export function appReferencing(state: NodeState, blobId: string): string | undefined {
  for (const app of state.apps.values()) {
    if (app.units.some((u) => u.bytecode === blobId || u.compiled === blobId)) return app.id;
  }
  return undefined;
}
