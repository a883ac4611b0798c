// Reading an app's ABI out of its `.mpk` bundle. For a bundle install the node stores the archive itself as the
// app's bytecode blob (calimero-network/core crates/node/primitives/src/client/application/install.rs), a
// gzip'd tar with `manifest.json` at its root naming each artifact by path (crates/bundle/src/lib.rs,
// BundleManifest; reader in client/application/bundle.rs). Everything here is bounded: decompressed bytes
// in all, bytes per entry, and entries read.

/** The most decompressed bytes one read of an archive goes through (core's own cap is 512 MiB). */
export const MAX_BUNDLE_BYTES = 256 * 1024 * 1024;
/** core's MAX_MANIFEST_BYTES: a bigger `manifest.json` is refused. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;
/** The most bytes kept of one artifact (the ABI JSON, or the wasm when the bundle has no ABI file). */
export const MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;
/** The most tar entries walked in one read. */
export const MAX_ENTRIES = 10_000;

const BLOCK = 512;

/** True for gzip data (the `.mpk` container); wasm starts with `\0asm`. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** The artifacts a bundle names for one unit: its ABI file (if any) and its wasm. */
export interface UnitArtifacts {
  abi: string | null;
  wasm: string | null;
}

/**
 * Which files of the bundle hold `service`'s ABI and wasm: a named service's own `abi`/`wasm`, or for a
 * single-service bundle the top-level ones (`services` wins when non-empty, as in core). Throws a sentence when
 * the manifest names no such unit.
 */
export function unitArtifacts(manifest: unknown, service: string | null): UnitArtifacts {
  const m = (manifest ?? {}) as Record<string, unknown>;
  const path = (artifact: unknown) => {
    const p = (artifact as Record<string, unknown> | null | undefined)?.path;
    return typeof p === "string" && p !== "" ? p : null;
  };
  const services = Array.isArray(m.services) ? m.services as Record<string, unknown>[] : [];
  if (services.length > 0) {
    const names = services.map((s) => s?.name);
    const wanted = service ?? (services.length === 1 ? names[0] : null);
    const entry = services.find((s) => s?.name === wanted);
    if (!entry) {
      throw new Error(
        `the bundle's manifest has no service ${service === null ? "to pick" : `"${service}"`} ` +
          `(its services: ${names.join(", ")})`,
      );
    }
    return { abi: path(entry.abi), wasm: path(entry.wasm) };
  }
  return { abi: path(m.abi), wasm: path(m.wasm) };
}

/** A tar entry path as compared: without `./` segments, so `./abi.json` and `abi.json` match. */
export function normalizeEntryPath(path: string): string {
  return path.split("/").filter((part) => part !== "" && part !== ".").join("/");
}

/**
 * The bytes of the first regular-file entry whose normalized path is `wanted`, or null when the archive has none.
 * Throws a sentence when the archive is not a readable gzip'd tar, or a bound is exceeded.
 */
export async function readBundleEntry(
  archive: Uint8Array,
  wanted: string,
  maxEntryBytes: number,
  maxTotalBytes: number = MAX_BUNDLE_BYTES,
): Promise<Uint8Array | null> {
  const target = normalizeEntryPath(wanted);
  const input = createReader(archive, maxTotalBytes);
  let longName: string | null = null;
  for (let entries = 0; entries < MAX_ENTRIES; entries++) {
    const header = await input.read(BLOCK);
    if (header === null || header.every((b) => b === 0)) return null;
    const size = octal(header.subarray(124, 136));
    if (size === null) throw new Error("the bundle is not a readable tar archive (bad entry size)");
    const type = String.fromCharCode(header[156] || 0x30);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (type === "L" || type === "x") {
      // GNU long name, or a pax header whose `path` record names the next entry.
      if (size > 64 * 1024) throw new Error("the bundle has an oversized tar header entry");
      const data = (await input.read(padded))?.subarray(0, size);
      if (!data) return null;
      longName = type === "L" ? cString(data) : paxPath(data) ?? longName;
      continue;
    }
    const name = longName ?? entryName(header);
    longName = null;
    const isFile = type === "0" || type === "\0" || type === "7";
    if (isFile && normalizeEntryPath(name) === target) {
      if (size > maxEntryBytes) {
        throw new Error(
          `the bundle's ${target} is ${size} bytes, over the ${maxEntryBytes} bytes read`,
        );
      }
      const data = await input.read(padded);
      if (data === null) throw new Error(`the bundle is cut short inside ${target}`);
      return data.slice(0, size);
    }
    if (!(await input.skip(padded))) return null;
  }
  throw new Error(`the bundle has more than ${MAX_ENTRIES} entries`);
}

/** Pulls exact byte counts out of the gunzipped stream, counting them against `maxTotal`. */
function createReader(archive: Uint8Array, maxTotal: number) {
  const stream = new Blob([archive as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new DecompressionStream("gzip"));
  const reader = stream.getReader();
  let buffered: Uint8Array = new Uint8Array(0);
  let total = 0;
  let done = false;

  async function fill(n: number): Promise<boolean> {
    const parts: Uint8Array[] = [buffered];
    let have = buffered.length;
    while (have < n && !done) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw new Error(`the bundle is not valid gzip data (${(error as Error).message})`);
      }
      if (chunk.done) {
        done = true;
        break;
      }
      total += chunk.value.length;
      if (total > maxTotal) {
        await reader.cancel().catch(() => {});
        throw new Error(`the bundle unpacks to more than ${maxTotal} bytes`);
      }
      parts.push(chunk.value);
      have += chunk.value.length;
    }
    if (parts.length > 1) {
      buffered = new Uint8Array(have);
      let at = 0;
      for (const part of parts) {
        buffered.set(part, at);
        at += part.length;
      }
    }
    return have >= n;
  }

  return {
    async read(n: number): Promise<Uint8Array | null> {
      if (!(await fill(n))) return null;
      const out = buffered.subarray(0, n);
      buffered = buffered.subarray(n);
      return out;
    },
    /** Skips `n` bytes without keeping more than one chunk of them. */
    async skip(n: number): Promise<boolean> {
      let left = n;
      while (left > 0) {
        if (buffered.length === 0 && !(await fill(1))) return false;
        const step = Math.min(left, buffered.length);
        buffered = buffered.subarray(step);
        left -= step;
      }
      return true;
    },
  };
}

function octal(field: Uint8Array): number | null {
  const text = cString(field).trim();
  if (!/^[0-7]*$/.test(text)) return null;
  return text === "" ? 0 : parseInt(text, 8);
}

function cString(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end === -1 ? bytes : bytes.subarray(0, end));
}

function entryName(header: Uint8Array): string {
  const name = cString(header.subarray(0, 100));
  const ustar = cString(header.subarray(257, 263)).startsWith("ustar");
  const prefix = ustar ? cString(header.subarray(345, 500)) : "";
  return prefix ? `${prefix}/${name}` : name;
}

/** The `path` record of a pax extended header (`<len> path=<value>\n`), if it has one. */
function paxPath(data: Uint8Array): string | null {
  for (const record of new TextDecoder().decode(data).split("\n")) {
    const match = /^\d+ path=(.*)$/.exec(record);
    if (match) return match[1];
  }
  return null;
}
