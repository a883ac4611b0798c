// App handles: HMAC-signed tokens that bind an app, its version and guide, a context and a
// service. The key lives in `<stateDir>/handle.key`, so handles survive a restart; deleting it rotates them.
// Needs only read/write on the state directory (no env, no sys).

import { join } from "path";
import { log } from "../lib/log.ts";
import { writeAll } from "../lib/fs.ts";
import { concatBytes } from "../lib/bytes.ts";

/** What a handle binds; the JSON keys are always in this order (a, p, v, g, c, s). */
export type HandlePayload = {
  /** application id (binds package and signer) */
  a: string;
  /** package, or the application id when the app has none */
  p: string;
  /** app version, `""` when none */
  v: string;
  /** guide hash (`guideHash` in guide.ts) */
  g: string;
  /** context id, or null for a handle bound to no context */
  c: string | null;
  /** service name, or null */
  s: string | null;
};

/** The result of `verifyHandle`: the payload, or a short reason that tells the agent what to do. */
export type HandleCheck = { ok: true; payload: HandlePayload } | { ok: false; reason: string };

const KEY_FILE = "handle.key";
const KEY_BYTES = 32;
/** How long a reader waits for a key file another process has created but not yet filled. */
const FILL_WAIT_MS = 1_000;
const FILL_POLL_MS = 10;
/** A short key file older than this is not being written: it is replaced at once. */
const FRESH_MS = 2_000;
/** Longer strings are never handles we issued (ids, package, version, context and service are short). */
const MAX_HANDLE_LENGTH = 8_192;

/**
 * Loads the HMAC-SHA256 key from `<stateDir>/handle.key`, creating it (32 random bytes, mode 0600) with an
 * exclusive create so that processes starting together end up sharing one key. A file of the wrong length
 * is replaced, with a warning. The state directory must exist.
 */
export async function loadHandleKey(stateDir: string): Promise<CryptoKey> {
  const file = join(stateDir, KEY_FILE);
  const deadline = Date.now() + FILL_WAIT_MS;
  while (true) {
    const bytes = await readIfExists(file);
    if (bytes === null) {
      const created = await createExclusive(file);
      if (created) return importKey(created);
      continue; // another process created it first: read theirs
    }
    if (bytes.length === KEY_BYTES) {
      await tightenMode(file);
      return importKey(bytes);
    }
    // Shorter than a key: possibly being written by the process that created it. Wait briefly.
    if (bytes.length < KEY_BYTES && Date.now() < deadline && await recentlyWritten(file)) {
      await new Promise((resolve) => setTimeout(resolve, FILL_POLL_MS));
      continue;
    }
    const replaced = await replaceWrongLength(file, bytes.length);
    if (replaced) return importKey(replaced);
  }
}

/** Whether the file changed in the last moments (or its time is unknown), so a writer may still be at it. */
async function recentlyWritten(file: string): Promise<boolean> {
  try {
    const { mtime } = await Deno.stat(file);
    return mtime === null || Date.now() - mtime.getTime() < FRESH_MS;
  } catch {
    return true; // gone or unreadable: the next read says which
  }
}

async function readIfExists(file: string): Promise<Uint8Array | null> {
  try {
    return await Deno.readFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw new Error(
      `Cannot read the app handle key "${file}": ${
        errorText(err)
      }. Check the state directory's permissions.`,
    );
  }
}

/** Creates the key file if no one has; returns the new key, or null when the file already exists. */
async function createExclusive(file: string): Promise<Uint8Array | null> {
  let handle: Deno.FsFile;
  try {
    handle = await Deno.open(file, { write: true, createNew: true, mode: 0o600 });
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) return null;
    throw new Error(
      `Cannot create the app handle key "${file}": ${
        errorText(err)
      }. Check that the state directory exists and is writable.`,
    );
  }
  try {
    // Held while writing, so a reader that gives up waiting and tries to replace the file waits for us.
    await handle.lock(true);
    const key = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
    await writeAll(handle, key);
    await handle.unlock();
    return key;
  } finally {
    handle.close();
  }
}

/**
 * Replaces a key file of the wrong length in place, under an exclusive lock; keeps a fix made meanwhile.
 * Null when the file vanished (deleted by someone else): the caller starts over.
 */
async function replaceWrongLength(file: string, length: number): Promise<Uint8Array | null> {
  let handle: Deno.FsFile;
  try {
    handle = await Deno.open(file, { read: true, write: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw new Error(
      `Cannot replace the app handle key "${file}": ${
        errorText(err)
      }. Delete the file and start again.`,
    );
  }
  try {
    await handle.lock(true);
    const current = await readAll(handle);
    if (current.length === KEY_BYTES) return current; // another process replaced it while we waited
    log.warn(
      `The app handle key "${file}" has ${length} bytes instead of ${KEY_BYTES}; replacing it with a new key. App handles issued before are now stale.`,
    );
    const key = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
    await handle.seek(0, Deno.SeekMode.Start);
    await writeAll(handle, key);
    await handle.truncate(KEY_BYTES);
    await handle.unlock();
    await tightenMode(file);
    return key;
  } finally {
    handle.close();
  }
}

/** An existing key readable by others is made owner-only again (POSIX only; Windows has no mode bits). */
async function tightenMode(file: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  try {
    const { mode } = await Deno.stat(file);
    if (mode === null || (mode & 0o077) === 0) return;
    log.warn(
      `The app handle key "${file}" was readable by other users; making it owner-only (0600).`,
    );
    await Deno.chmod(file, 0o600);
  } catch (err) {
    log.warn(`Could not check the mode of the app handle key "${file}": ${errorText(err)}.`);
  }
}

async function readAll(handle: Deno.FsFile): Promise<Uint8Array> {
  await handle.seek(0, Deno.SeekMode.Start);
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(256);
  while (true) {
    const n = await handle.read(buffer);
    if (n === null) break;
    chunks.push(buffer.slice(0, n));
  }
  return concatBytes(chunks);
}

function importKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    new Uint8Array(raw),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Issues a handle: `base64url(JSON payload) + "." + base64url(HMAC-SHA256(key, JSON payload))`, unpadded. */
export async function issueHandle(key: CryptoKey, payload: HandlePayload): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(payload));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes));
  return `${toBase64Url(bytes)}.${toBase64Url(mac)}`;
}

/**
 * Checks a handle's form and MAC (in constant time) and returns its payload. Anything not exactly as
 * `issueHandle` writes it is refused. Whether the payload still matches the install is the gate's job.
 */
export async function verifyHandle(key: CryptoKey, handle: string): Promise<HandleCheck> {
  const known = verified.get(key)?.get(handle);
  if (known) return { ok: true, payload: known };
  const checked = await verifyAfresh(key, handle);
  if (checked.ok) remember(key, handle, checked.payload);
  return checked;
}

/**
 * Handles this process has verified, per key: an agent passes the same handle on every call, and a MAC
 * check per call is the largest part of a call's own time. Bounded; a rotated key is a new map.
 */
const verified = new WeakMap<CryptoKey, Map<string, HandlePayload>>();
const VERIFIED_MAX = 1024;

function remember(key: CryptoKey, handle: string, payload: HandlePayload): void {
  let map = verified.get(key);
  if (!map) verified.set(key, map = new Map());
  if (map.size >= VERIFIED_MAX) map.delete(map.keys().next().value!);
  map.set(handle, payload);
}

async function verifyAfresh(key: CryptoKey, handle: string): Promise<HandleCheck> {
  const malformed: HandleCheck = {
    ok: false,
    reason:
      "The app handle is malformed; call select_app again and pass the app_handle it returns.",
  };
  if (typeof handle !== "string" || handle.length > MAX_HANDLE_LENGTH) return malformed;
  const parts = handle.split(".");
  if (parts.length !== 2) return malformed;
  const body = fromBase64Url(parts[0]);
  const mac = fromBase64Url(parts[1]);
  if (body === null || body.length === 0 || mac === null || mac.length !== KEY_BYTES) {
    return malformed;
  }
  if (!await crypto.subtle.verify("HMAC", key, mac, body)) {
    return {
      ok: false,
      reason:
        "The app handle was not issued by this server (changed, or its key was rotated); call select_app again.",
    };
  }
  const payload = parsePayload(body);
  return payload === null ? malformed : { ok: true, payload };
}

/**
 * The payload a handle claims, read WITHOUT checking its MAC: only for routing a call to the app it names
 * (the gate then verifies it). Null for anything that is not a handle's shape.
 */
export function readUnverified(handle: string): HandlePayload | null {
  if (typeof handle !== "string" || handle.length > MAX_HANDLE_LENGTH) return null;
  const body = fromBase64Url(handle.split(".")[0]);
  return body === null ? null : parsePayload(body);
}

/** The payload as JSON with keys in the fixed order; the only form a valid handle carries. */
function canonicalJson(p: HandlePayload): string {
  return JSON.stringify({ a: p.a, p: p.p, v: p.v, g: p.g, c: p.c, s: p.s });
}

function parsePayload(bytes: Uint8Array): HandlePayload | null {
  let text: string;
  let value: unknown;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const keys = Object.keys(v);
  if (keys.join(",") !== "a,p,v,g,c,s") return null;
  const str = (x: unknown) => typeof x === "string";
  const strOrNull = (x: unknown) => x === null || typeof x === "string";
  if (!str(v.a) || !str(v.p) || !str(v.v) || !str(v.g) || !strOrNull(v.c) || !strOrNull(v.s)) {
    return null;
  }
  const payload = v as HandlePayload;
  // Byte-exact: no whitespace, duplicate keys or alternative escapes.
  return canonicalJson(payload) === text ? payload : null;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/** Unpadded base64url. */
function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Strict unpadded base64url: null for other characters, padding, a bad length or non-zero spare bits. */
function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!B64URL.test(text) || text.length % 4 === 1) return null;
  let binary: string;
  try {
    binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return null;
  }
  const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  return toBase64Url(bytes) === text ? bytes : null;
}
