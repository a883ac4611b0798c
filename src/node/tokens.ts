// The token store: one owner-only file per node and identity in the state dir, replaced
// atomically, and a refresh lock shared with other processes. Refresh tokens are single-use: spending one twice
// revokes the whole family, so every refresh runs under the OS file lock after re-reading the file.

import { decodeJwtClaims } from "../mero/mod.ts";
import { addSecret } from "../lib/redact.ts";
import { canonicalNodeUrl, safeOrigin } from "./discovery.ts";
import { log } from "../lib/log.ts";
import { writeAll } from "../lib/fs.ts";

/** An access token with its refresh token; `expiresAt` is the access token's JWT `exp` (epoch seconds). */
export interface StoredTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: number | null;
}

/** Waiting for another process's refresh took too long; the message names the holder and what to do. */
export class TokenLockTimeout extends Error {
  override name = "TokenLockTimeout";
}

/** Where one node-and-identity's tokens live, and the operations on them. */
export interface TokenStore {
  /** The token file (`tokens-<16 hex>.json`). */
  readonly file: string;
  /** The refresh lock file (`tokens-<16 hex>.json.lock`). */
  readonly lockFile: string;
  /** The stored pair; null when absent or unreadable (an invalid file is warned about and treated as empty). */
  read(): Promise<StoredTokens | null>;
  /** Replaces the stored pair atomically: readers see the old pair or the new one, never a partial file. */
  write(pair: StoredTokens): Promise<void>;
  /** Deletes the stored pair (the next use needs a new login or token). */
  clear(): Promise<void>;
  /**
   * Offers a token from outside (handoff or env). It replaces the stored pair only when the store is empty, when
   * the stored pair carries other permissions, or when both carry a JWT `iat` and the injected one is strictly
   * newer. Returns the pair in effect.
   */
  inject(pair: StoredTokens): Promise<StoredTokens>;
  /** Runs `fn` holding the exclusive refresh lock, waiting at most `waitMs` for it. */
  withLock<T>(waitMs: number, fn: () => Promise<T>): Promise<T>;
}

/** Identifies a store: the node (any spelling) and the credential's identity ({@link credentialIdentity}). */
export interface TokenStoreOptions {
  stateDir: string;
  nodeUrl: string;
  identity: string;
}

/**
 * Which credential a token file holds, so instances given different credentials for one node never share a file
 * (a least-privilege key would otherwise adopt an admin's pair, or the reverse: hostile-input-4 K1). Credentials:
 * the username (the file name earlier versions used); a configured token: the token itself, hashed into the name;
 * the handoff: one file for whatever agent.json holds, which the desktop app replaces.
 */
export function credentialIdentity(
  mode: "handoff" | "token" | "credentials" | "login",
  configured: { authToken: string | null; username: string | null },
): string {
  switch (mode) {
    case "credentials":
      return configured.username ?? "";
    case "token":
      return `\0token\0${configured.authToken ?? ""}`;
    case "handoff":
      return "\0handoff";
    case "login":
      return "\0login";
  }
}

/** Builds a pair from raw tokens, reading `expiresAt` from the access token's `exp` claim when it has one. */
export function storedTokens(accessToken: string, refreshToken: string | null): StoredTokens {
  // Every token this process holds is masked wherever a node's answer would echo it (redact.ts).
  addSecret(accessToken);
  addSecret(refreshToken);
  const exp = decodeJwtClaims(accessToken)?.exp;
  return { accessToken, refreshToken, expiresAt: typeof exp === "number" ? exp : null };
}

/** The injection rule: true when an injected pair should replace the cached one (see {@link TokenStore.inject}). */
export function injectedWins(cached: StoredTokens | null, injected: StoredTokens): boolean {
  if (cached === null) return true;
  if (cached.accessToken === injected.accessToken) return false;
  // A stored pair that may do other things than the one configured is never adopted in its place.
  if (!samePermissions(cached, injected)) return true;
  const cachedIat = decodeJwtClaims(cached.accessToken)?.iat;
  const injectedIat = decodeJwtClaims(injected.accessToken)?.iat;
  return typeof cachedIat === "number" && typeof injectedIat === "number" &&
    injectedIat > cachedIat;
}

/** Whether two pairs' access tokens carry the same `permissions` (both unreadable counts as the same). */
function samePermissions(a: StoredTokens, b: StoredTokens): boolean {
  const key = (pair: StoredTokens) =>
    JSON.stringify([...decodeJwtClaims(pair.accessToken)?.permissions ?? []].sort());
  return key(a) === key(b);
}

/** The token file name for a node and identity: `tokens-<first 16 hex of sha256(url + "\0" + identity)>.json`. */
export async function tokenFileName(nodeUrl: string, identity: string): Promise<string> {
  const key = `${canonicalNodeUrl(nodeUrl)}\0${identity}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return `tokens-${new Uint8Array(digest).toHex().slice(0, 16)}.json`;
}

/** Opens the store for one node and identity (nothing is created until the first write or lock). */
export async function createTokenStore(options: TokenStoreOptions): Promise<TokenStore> {
  const dir = options.stateDir.replace(/[\\/]+$/, "");
  const file = `${dir}/${await tokenFileName(options.nodeUrl, options.identity)}`;
  const lockFile = `${file}.lock`;
  const where = safeOrigin(options.nodeUrl);
  let dirReady: Promise<void> | null = null;
  const ensureDir = () => dirReady ??= Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await tidy(dir, file);

  async function read(): Promise<StoredTokens | null> {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
    const pair = parseStored(text);
    if (pair === null) {
      log.warn(
        `The token file ${file} (node ${where}) is not valid: treating it as empty. ` +
          "A new login or token is needed; delete the file to silence this warning.",
      );
    }
    return pair;
  }

  async function write(pair: StoredTokens): Promise<void> {
    await ensureDir();
    const body = JSON.stringify({
      access_token: pair.accessToken,
      refresh_token: pair.refreshToken,
      expires_at: pair.expiresAt,
    });
    const temp = `${file}.${Deno.pid}-${crypto.randomUUID().slice(0, 8)}.tmp`;
    try {
      const handle = await Deno.open(temp, { write: true, createNew: true, mode: 0o600 });
      try {
        await writeAll(handle, new TextEncoder().encode(body));
        await handle.sync();
      } finally {
        handle.close();
      }
      await Deno.rename(temp, file);
    } catch (err) {
      await Deno.remove(temp).catch(() => {});
      throw err;
    }
  }

  async function clear(): Promise<void> {
    await Deno.remove(file).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }

  async function withLock<T>(waitMs: number, fn: () => Promise<T>): Promise<T> {
    await ensureDir();
    const handle = await Deno.open(lockFile, {
      read: true,
      write: true,
      create: true,
      mode: 0o600,
    });
    try {
      await acquire(handle, waitMs);
      try {
        await handle.truncate(0);
        await writeAll(handle, new TextEncoder().encode(`${Deno.pid}\n`));
        return await fn();
      } finally {
        await handle.unlock().catch(() => {});
      }
    } finally {
      handle.close();
    }
  }

  async function acquire(handle: Deno.FsFile, waitMs: number): Promise<void> {
    // tryLock, not lock: a pending lock() cannot be cancelled and would outlive the wait.
    const deadline = Date.now() + waitMs;
    let pause = 5;
    while (!(await handle.tryLock(true))) {
      const left = deadline - Date.now();
      if (left <= 0) {
        const holder = await Deno.readTextFile(lockFile).then((t) => t.trim()).catch(() => "");
        throw new TokenLockTimeout(
          `Waited ${waitMs} ms for another mero-mcp process${
            /^\d+$/.test(holder) ? ` (pid ${holder})` : ""
          } ` +
            `to finish refreshing the token for ${where}. Retry the request; if this persists, that process ` +
            `is stuck holding ${lockFile}: stop it.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
      pause = Math.min(pause * 2, 100);
    }
  }

  async function inject(pair: StoredTokens): Promise<StoredTokens> {
    return await withLock(INJECT_WAIT_MS, async () => {
      const cached = await read();
      if (!injectedWins(cached, pair)) return cached ?? pair;
      await write(pair);
      return pair;
    });
  }

  return { file, lockFile, read, write, clear, inject, withLock };
}

const INJECT_WAIT_MS = 10_000;

/** What a refresh did: the pair now in effect (null when none could be obtained). */
export type RefreshFn = (stored: StoredTokens | null) => Promise<StoredTokens | null>;

const inFlight = new Map<string, Promise<StoredTokens | null>>();

/**
 * Replaces the token `failedAccessToken` exactly once across threads and processes. Concurrent callers in this
 * process share one attempt; across processes the file lock serialises them, and whoever gets it second finds
 * the new pair already stored and does not spend the refresh token again. `refresh` runs under the lock only
 * when the stored token is still the failed one, is past its `exp`, or none is stored; its result is stored
 * unless null.
 */
export function refreshOnce(
  store: TokenStore,
  failedAccessToken: string,
  waitMs: number,
  refresh: RefreshFn,
): Promise<StoredTokens | null> {
  const key = `${store.file}\0${failedAccessToken}`;
  const running = inFlight.get(key);
  if (running) return running;
  const attempt = store.withLock(waitMs, async () => {
    const stored = await store.read();
    if (stored !== null && stored.accessToken !== failedAccessToken && !isExpired(stored)) {
      return stored;
    }
    const next = await refresh(stored);
    if (next !== null) await store.write(next);
    return next;
  }).finally(() => inFlight.delete(key));
  inFlight.set(key, attempt);
  return attempt;
}

/** True when the pair's access token is past its `exp` (a pair without `exp` is never known to be expired). */
function isExpired(pair: StoredTokens, now: number = Date.now()): boolean {
  return pair.expiresAt !== null && pair.expiresAt * 1000 <= now;
}

function parseStored(text: string): StoredTokens | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null) return null;
  const { access_token, refresh_token, expires_at } = data as Record<string, unknown>;
  if (typeof access_token !== "string" || access_token === "") return null;
  if (refresh_token !== null && refresh_token !== undefined && typeof refresh_token !== "string") {
    return null;
  }
  return {
    accessToken: access_token,
    refreshToken: typeof refresh_token === "string" && refresh_token !== "" ? refresh_token : null,
    expiresAt: typeof expires_at === "number" ? expires_at : null,
  };
}

/** How old a temp file must be before it counts as left behind by a killed writer (a write takes ms). */
const STALE_TEMP_MS = 5 * 60_000;

/**
 * Best effort, once per store: removes temp files a killed writer left beside the token file, and tightens
 * token and lock files that an older version or a person left readable by others.
 */
async function tidy(dir: string, file: string): Promise<void> {
  const base = file.slice(dir.length + 1);
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.startsWith(base)) continue;
      const path = `${dir}/${entry.name}`;
      const info = await Deno.stat(path);
      if (entry.name.endsWith(".tmp")) {
        const age = Date.now() - (info.mtime?.getTime() ?? Date.now());
        if (age > STALE_TEMP_MS) await Deno.remove(path);
      } else if (Deno.build.os !== "windows" && info.mode !== null && (info.mode & 0o077) !== 0) {
        await Deno.chmod(path, 0o600);
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) log.debug(`token files not tidied: ${error}`);
  }
}
