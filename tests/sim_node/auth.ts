// Embedded auth of the simulated node: JWT-shaped tokens (HS256 over a per-node secret), refresh
// accepted only after the access token expired, single-use refresh tokens whose replay revokes the
// whole family, the guard's `X-Auth-Error` signals, and a login lockout (429 + Retry-After).

import { bare, json } from "./http.ts";
import { hmacSha256 } from "./ids.ts";
import type { SimAuthOptions } from "./types.ts";
import { permits, requiredPermission } from "./permissions.ts";

interface TokenRecord {
  type: "access" | "refresh";
  family: number;
  /** What the key may do (permissions.ts); a login's tokens are `admin`. */
  permissions: readonly string[];
  /** Expiry in ms since the epoch. */
  exp: number;
  forcedExpired: boolean;
  consumed: boolean;
}

/** Counters tests read: successful logins and refreshes, detected refresh-token replays. */
export interface AuthStats {
  refreshes: number;
  logins: number;
  reuseDetected: number;
  failedLogins: number;
}

/** The auth state of one node in embedded mode. */
export interface AuthState {
  config: Required<SimAuthOptions>;
  secret: string;
  lastIat: number;
  nextFamily: number;
  nextJti: number;
  tokens: Map<string, TokenRecord>;
  revokedFamilies: Set<number>;
  failedInRow: number;
  lockedUntil: number;
  /** The permissions of each token family (default `admin`, as every login's: core #3404). */
  familyPermissions: Map<number, readonly string[]>;
  /** The contexts and groups a scoped client key may act on (newer core `ClientKeyScope`); absent: any. */
  familyScopes: Map<number, KeyScope>;
  stats: AuthStats;
}

/** What a scoped client key may act on: context ids (base58) and group ids (hex). */
export interface KeyScope {
  contexts?: readonly string[];
  groups?: readonly string[];
}

/** A token pair as the node returns it. */
export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const encodePart = (value: unknown) => b64url(new TextEncoder().encode(JSON.stringify(value)));

/** Fresh auth state; `seed` makes the signing secret node-specific. */
export function createAuth(options: SimAuthOptions, seed: string): AuthState {
  return {
    config: {
      accessTtlSeconds: 3600,
      refreshTtlSeconds: 30 * 86400,
      maxFailedLogins: 5,
      lockoutSeconds: 30,
      ...options,
    },
    secret: `sim-auth-secret:${seed}`,
    lastIat: 0,
    nextFamily: 1,
    nextJti: 1,
    tokens: new Map(),
    revokedFamilies: new Set(),
    failedInRow: 0,
    lockedUntil: 0,
    familyPermissions: new Map(),
    familyScopes: new Map(),
    stats: { refreshes: 0, logins: 0, reuseDetected: 0, failedLogins: 0 },
  };
}

function sign(auth: AuthState, type: "access" | "refresh", family: number, iat: number): string {
  const ttl = type === "access" ? auth.config.accessTtlSeconds : auth.config.refreshTtlSeconds;
  const jti = `${type}-${auth.nextJti++}`;
  const exp = iat + ttl;
  const permissions = auth.familyPermissions.get(family) ?? ["admin"];
  auth.tokens.set(jti, {
    type,
    family,
    permissions,
    exp: exp * 1000,
    forcedExpired: false,
    consumed: false,
  });
  const head = encodePart({ alg: "HS256", typ: "JWT" });
  const body = encodePart({
    sub: auth.config.username,
    exp,
    iat,
    jti,
    token_type: type,
    permissions,
  });
  return `${head}.${body}.${b64url(hmacSha256(auth.secret, `${head}.${body}`))}`;
}

/**
 * Issues a pair in `family` (a new one by default, with `permissions` when given: a scoped client key). `iat`
 * is in seconds but strictly increasing from one pair to the next, so a newer token always carries a larger
 * `iat`.
 */
export function issuePair(
  auth: AuthState,
  family = auth.nextFamily++,
  permissions?: readonly string[],
  scope?: KeyScope,
): TokenPair {
  if (permissions) auth.familyPermissions.set(family, permissions);
  if (scope) auth.familyScopes.set(family, scope);
  const iat = Math.max(Math.floor(Date.now() / 1000), auth.lastIat + 1);
  auth.lastIat = iat;
  return {
    access_token: sign(auth, "access", family, iat),
    refresh_token: sign(auth, "refresh", family, iat),
  };
}

function lookup(auth: AuthState, token: unknown): TokenRecord | null {
  if (typeof token !== "string") return null;
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  if (b64url(hmacSha256(auth.secret, `${parts[0]}.${parts[1]}`)) !== parts[2]) return null;
  try {
    const claims = JSON.parse(atob(parts[1].replace(/-/g, "+").replace(/_/g, "/")));
    return auth.tokens.get(claims.jti) ?? null;
  } catch {
    return null;
  }
}

const expired = (r: TokenRecord) => r.forcedExpired || Date.now() >= r.exp;

/**
 * The guard in front of the admin API and JSON-RPC; null lets the request through. Like core it verifies the
 * token first, expiry before revocation (crates/auth/src/auth/token/jwt.rs, verify_token), turns every other
 * token failure into a bare 401 (crates/server/src/auth.rs), then checks the route's permission (403
 * `permission_denied`, permissions.ts). It never answers `invalid_node`: core sends that only from /auth.
 */
export function guard(auth: AuthState, req: Request, path: string): Response | null {
  const header = req.headers.get("authorization") ?? "";
  const record = header.startsWith("Bearer ") ? lookup(auth, header.slice(7).trim()) : null;
  if (!record || record.type !== "access") return bare(401);
  if (expired(record)) return bare(401, { "X-Auth-Error": "token_expired" });
  if (auth.revokedFamilies.has(record.family)) {
    return bare(403, { "X-Auth-Error": "token_revoked" });
  }
  if (!permits(record.permissions, requiredPermission(req.method, path))) {
    return bare(403, { "X-Auth-Error": "permission_denied" });
  }
  return null;
}

/**
 * Newer core only: a client key bound to some contexts and groups is refused, after the guard, on a route that
 * names another one — a JSON 403 without `X-Auth-Error` (newer crates/server/src/admin/client_key_scope.rs
 * `refuse_out_of_scope`): syncing every context, a context or a group outside its scope.
 */
export function outOfScope(auth: AuthState, req: Request, path: string): Response | null {
  const header = req.headers.get("authorization") ?? "";
  const record = header.startsWith("Bearer ") ? lookup(auth, header.slice(7).trim()) : null;
  const scope = record ? auth.familyScopes.get(record.family) : undefined;
  if (!scope) return null;
  const refuse = (message: string) => json({ error: message }, 403);
  if (/\/admin-api\/contexts\/sync\/?$/.test(path)) {
    return refuse("This key may not sync every context");
  }
  const context = path.match(/\/admin-api\/contexts\/(?!sync\b|for-application\b)([^/]+)/)?.[1] ??
    path.match(/\/admin-api\/contexts\/sync\/([^/]+)/)?.[1];
  if (context !== undefined && !(scope.contexts ?? []).includes(decodeURIComponent(context))) {
    return refuse("This key is not permitted to act on this context");
  }
  const group = path.match(/\/admin-api\/(?:groups|namespaces)\/([0-9a-fA-F]{64})/)?.[1];
  if (group !== undefined && !(scope.groups ?? []).includes(group.toLowerCase())) {
    return refuse("This key is not permitted to act on this group");
  }
  return null;
}

const pairBody = (pair: TokenPair) => json({ data: pair, error: null });

/** `POST /auth/token` with `user_password` credentials. */
export function login(auth: AuthState, body: Record<string, unknown>): Response {
  const now = Date.now();
  if (now < auth.lockedUntil) {
    const wait = Math.ceil((auth.lockedUntil - now) / 1000);
    return json({ error: "Too many failed login attempts" }, 429, { "Retry-After": String(wait) });
  }
  const provider = body.provider_data as Record<string, unknown> | undefined;
  if (body.auth_method !== "user_password" || typeof provider?.username !== "string") {
    return json({ data: null, error: "auth_method must be user_password with provider_data" }, 400);
  }
  if (provider.username !== auth.config.username || provider.password !== auth.config.password) {
    auth.stats.failedLogins++;
    if (++auth.failedInRow >= auth.config.maxFailedLogins) {
      auth.failedInRow = 0;
      auth.lockedUntil = now + auth.config.lockoutSeconds * 1000;
    }
    return json({ data: null, error: "Invalid username or password" }, 401);
  }
  auth.failedInRow = 0;
  auth.stats.logins++;
  return pairBody(issuePair(auth));
}

/** `POST /auth/refresh`: single-use refresh tokens, accepted only once the access token expired. */
export function refresh(auth: AuthState, body: Record<string, unknown>): Response {
  const r = lookup(auth, body.refresh_token);
  if (!r || r.type !== "refresh") return json({ data: null, error: "Invalid refresh token" }, 401);
  if (r.consumed && !auth.revokedFamilies.has(r.family)) {
    // A replay is refused; the family is revoked only for a client key. A login's pair is minted against the
    // node's root key, which core never revokes on reuse (it would lock the node out): the other holder's fresh
    // pair keeps working (crates/auth/src/auth/token/jwt.rs, revoke_token_family; :881-894).
    if (auth.familyPermissions.has(r.family)) auth.revokedFamilies.add(r.family);
    auth.stats.reuseDetected++;
    return bare(401, { "X-Auth-Error": "token_reuse" });
  }
  if (expired(r)) return bare(401, { "X-Auth-Error": "token_expired" });
  const a = lookup(auth, body.access_token);
  if (!a || a.type !== "access" || a.family !== r.family) {
    return json(
      { data: null, error: "The access token does not belong to this refresh token" },
      401,
    );
  }
  if (!expired(a)) {
    return json({
      data: null,
      error: "The access token is still valid: refresh only after it expires",
    }, 401);
  }
  if (auth.revokedFamilies.has(r.family)) {
    // A revoked key is gone from the key store, so core's refresh_token_pair fails with "Key not found" and the
    // handler's catch-all answers 500 (crates/auth/src/api/handlers/auth.rs, refresh_token_handler).
    return json({
      data: null,
      error: `Failed to refresh token: Invalid token: Key not found: ${r.family}`,
    }, 500);
  }
  r.consumed = true;
  auth.stats.refreshes++;
  return pairBody(issuePair(auth, r.family));
}

/** Makes every access token issued so far expired (the next guarded call gets `token_expired`). */
export function expireAll(auth: AuthState): void {
  for (const record of auth.tokens.values()) {
    if (record.type === "access") record.forcedExpired = true;
  }
}

/** Revokes every token family issued so far (guarded calls get 403 `token_revoked`). */
export function revokeAll(auth: AuthState): void {
  for (const record of auth.tokens.values()) auth.revokedFamilies.add(record.family);
}

/**
 * `POST /admin/client-key`: a client key's token pair minted with an admin token, its permissions
 * `context[<id>,<identity>]` (when both are named) and those asked for, each within the root key's (an admin login
 * has them all). A token that does not verify is a 401 "Invalid token", one without `admin` a 403 (core
 * crates/auth/src/api/handlers/client_keys.rs `generate_client_key_handler`).
 */
export function clientKey(auth: AuthState, req: Request, body: Record<string, unknown>): Response {
  const header = req.headers.get("authorization") ?? "";
  const record = header.startsWith("Bearer ") ? lookup(auth, header.slice(7).trim()) : null;
  if (
    !record || record.type !== "access" || expired(record) ||
    auth.revokedFamilies.has(record.family)
  ) {
    return json({ data: null, error: "Invalid token" }, 401);
  }
  if (!record.permissions.includes("admin")) {
    return json({ data: null, error: "Token does not have admin permissions" }, 403);
  }
  const permissions: string[] = [];
  if (typeof body.context_id === "string" && typeof body.context_identity === "string") {
    permissions.push(`context[${body.context_id},${body.context_identity}]`);
  }
  for (const p of Array.isArray(body.permissions) ? body.permissions : []) {
    if (typeof p === "string" && !permissions.includes(p)) permissions.push(p);
  }
  return pairBody(issuePair(auth, undefined, permissions));
}
