// The node's embedded-auth endpoints (`/auth/token`, `/auth/refresh`) and JWT claim reading.
// Both endpoints live at the node's root even when its base URL has a path prefix (core nests `/auth` at the
// root: crates/auth/src/api/routes.rs, crates/server/src/lib.rs).
// Storing, sharing and choosing tokens is src/node/node.ts's job; these calls never send a bearer token.

import type { CallOptions, HttpCore } from "./http.ts";

export type { AuthProvider } from "./http.ts";

/** An access/refresh token pair as mero-mcp keeps it. */
export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

/** The subset of JWT claims mero-mcp reads (seconds since the epoch; subject). */
export interface JwtClaims {
  iat?: number;
  exp?: number;
  sub?: string;
  /** What the token may do (core's auth: `admin`, or scoped ones such as `context[<id>,<identity>]`, `blob:get`). */
  permissions?: string[];
}

/**
 * Logs in with a username and password (`POST /auth/token`, method `user_password`) and returns
 * a fresh token pair. `client_name` stays a plain name: one that parses as a URL would bind the
 * token to that host.
 */
export async function login(
  http: HttpCore,
  credentials: { username: string; password: string },
  call?: CallOptions,
): Promise<TokenPair> {
  const payload = await http.request({
    method: "POST",
    path: "/auth/token",
    atRoot: true,
    auth: false,
    call,
    json: {
      auth_method: "user_password",
      public_key: credentials.username,
      client_name: "mero-mcp",
      timestamp: Math.floor(Date.now() / 1000),
      provider_data: { username: credentials.username, password: credentials.password },
    },
  });
  return tokenPair(payload, "POST /auth/token");
}

/**
 * Exchanges a pair for a new one (`POST /auth/refresh`). The node accepts this only once the access
 * token has expired, and each refresh token only once: replaying it revokes the whole family.
 */
export async function refreshTokens(
  http: HttpCore,
  tokens: TokenPair,
  call?: CallOptions,
): Promise<TokenPair> {
  const payload = await http.request({
    method: "POST",
    path: "/auth/refresh",
    atRoot: true,
    auth: false,
    call,
    json: { access_token: tokens.accessToken, refresh_token: tokens.refreshToken },
  });
  return tokenPair(payload, "POST /auth/refresh");
}

function tokenPair(payload: unknown, endpoint: string): TokenPair {
  const record = (payload ?? {}) as Record<string, unknown>;
  const access = record.access_token;
  const refresh = record.refresh_token;
  if (typeof access !== "string" || access === "" || typeof refresh !== "string") {
    throw new Error(
      `The node's answer to ${endpoint} has no access_token/refresh_token; is embedded auth enabled on this node?`,
    );
  }
  return { accessToken: access, refreshToken: refresh };
}

/**
 * Reads `iat`, `exp`, `sub` and `permissions` from a JWT (with or without a `Bearer ` prefix) without verifying
 * it: mero-mcp only needs them to order tokens and anticipate expiry. Null when unreadable.
 */
export function decodeJwtClaims(token: string): JwtClaims | null {
  const parts = token.replace(/^Bearer\s+/i, "").split(".");
  if (parts.length !== 3) return null;
  let claims: unknown;
  try {
    const base64 = parts[1].replace(/-/g, "+").replace(/_/g, "/");
    const padded = base64 + "=".repeat((4 - base64.length % 4) % 4);
    const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
    claims = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
  if (claims === null || typeof claims !== "object" || Array.isArray(claims)) return null;
  const { iat, exp, sub, permissions } = claims as Record<string, unknown>;
  const result: JwtClaims = {};
  if (Array.isArray(permissions) && permissions.every((p) => typeof p === "string")) {
    result.permissions = permissions;
  }
  if (typeof iat === "number" && Number.isFinite(iat)) result.iat = iat;
  if (typeof exp === "number" && Number.isFinite(exp)) result.exp = exp;
  if (typeof sub === "string") result.sub = sub;
  return result;
}
