// `.mpk` bundles as core stores them. A bundle install keeps the archive itself as the app's bytecode blob with
// a zero `compiled` blob; each named service gets its own wasm blob (core crates/node/primitives/src/client/
// application/install.rs). The archive is a gzip'd tar with `manifest.json` at its root (crates/bundle/src/lib.rs,
// BundleManifest), and the app's stored metadata is `manifest.to_metadata_json()`: package, version and the
// manifest's display metadata — never a guide, and never the metadata bytes the install request carried.

import { gzipSync } from "fflate";
import { createTar } from "nanotar";
import { base58Encode } from "./base58.ts";
import { jsonBytes } from "./json.ts";

/** The blob id of 32 zero bytes: what core stores as a bundle's `compiled` blob. */
export const ZERO_BLOB_ID = base58Encode(new Uint8Array(32));

/** One unit as the bundle packs it: its service name (null for a single-service bundle), wasm and ABI. */
export interface BundleUnit {
  service: string | null;
  wasm: Uint8Array;
  abiText: string | null;
}

/** What a bundle is built from. */
export interface BundleSpec {
  package: string;
  version: string;
  name?: string;
  description?: string;
  icon?: string;
}

/** The `.mpk` archive for `units`: manifest.json plus each unit's wasm and (when it has one) ABI file. */
export function buildBundle(spec: BundleSpec, units: BundleUnit[]): Uint8Array {
  const artifact = (path: string, bytes: Uint8Array) => ({ path, hash: "", size: bytes.length });
  const files: { name: string; data: Uint8Array | string }[] = [];
  const entry = (unit: BundleUnit) => {
    const stem = unit.service ?? "app";
    files.push({ name: `${stem}.wasm`, data: unit.wasm });
    if (unit.abiText !== null) files.push({ name: `res/${stem}.abi.json`, data: unit.abiText });
    return {
      wasm: artifact(`${stem}.wasm`, unit.wasm),
      ...(unit.abiText === null
        ? {}
        : { abi: artifact(`res/${stem}.abi.json`, new TextEncoder().encode(unit.abiText)) }),
    };
  };
  const named = units.every((u) => u.service !== null);
  const manifest = {
    version: "1.0",
    package: spec.package,
    appVersion: spec.version,
    minRuntimeVersion: "0.1.0",
    metadata: {
      name: spec.name ?? spec.package,
      description: spec.description,
      ...(spec.icon !== undefined ? { icon: spec.icon } : {}),
    },
    ...(named
      ? { services: units.map((u) => ({ name: u.service, ...entry(u) })) }
      : entry(units[0])),
  };
  return gzipSync(createTar([{ name: "manifest.json", data: JSON.stringify(manifest) }, ...files]));
}

/** The metadata bytes core stores for a bundle install (BundleManifest::to_metadata_json). */
export function bundleMetadata(spec: BundleSpec): Uint8Array {
  const fields: Record<string, unknown> = { package: spec.package, version: spec.version };
  if (spec.name !== undefined) fields.name = spec.name;
  if (spec.description !== undefined) fields.description = spec.description;
  // to_metadata_json: name, description, author, icon, tags, license, links, in that order.
  if (spec.icon !== undefined) fields.icon = spec.icon;
  return new Uint8Array(jsonBytes(fields));
}
