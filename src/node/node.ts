// Connecting to the node: discover it, pick the auth mode and build the client whose auth
// provider keeps its tokens in the shared token store. A handoff token is only ever sent to the node it names.

import type { Config } from "../config/config.ts";
import {
  canonicalNodeUrl,
  discoverNode,
  type DiscoverySource,
  type Handoff,
  readHandoff,
  safeOrigin,
} from "./discovery.ts";
import { log } from "../lib/log.ts";
import {
  type AuthProvider,
  createMeroClient,
  decodeJwtClaims,
  type HttpCore,
  login,
  type MeroClient,
  NodeHttpError,
  refreshTokens,
} from "../mero/mod.ts";
import { addSecret } from "../lib/redact.ts";
import {
  createTokenStore,
  credentialIdentity,
  injectedWins,
  refreshOnce,
  type StoredTokens,
  storedTokens,
  type TokenStore,
} from "./tokens.ts";

/** How mero-mcp authenticates to the node, the first that applies: handoff, token, credentials, none. */
export type AuthMode = "handoff" | "token" | "credentials" | "login" | "none";

/** A discovered node with its client, as the session memoises it. */
export interface NodeConnection {
  client: MeroClient;
  /** The node's base URL as discovered (no trailing slash). */
  url: string;
  nodeName: string | null;
  discoverySource: DiscoverySource;
  authMode: AuthMode;
}

/** Injectable effects (tests): the fetch used for probes and node calls, and the handoff instead of agent.json. */
export interface ConnectDeps {
  fetch?: typeof fetch;
  handoff?: Handoff | null;
  probeTimeoutMs?: number;
}

/** True when two URLs name the same node (compared in canonical form). */
export function sameNode(a: string, b: string): boolean {
  try {
    return canonicalNodeUrl(a) === canonicalNodeUrl(b);
  } catch {
    return false;
  }
}

/**
 * The auth mode for a node at `nodeUrl`: a configured token, else configured username and password, else the
 * handoff when agent.json names this very node, else none. A credential the person configured wins over the one
 * the desktop app handed over, so a least-privilege key stays what they gave (hostile-input-4 K1).
 */
export function chooseAuthMode(
  config: Config,
  nodeUrl: string,
  handoff: Handoff | null,
  source: DiscoverySource = "env",
): AuthMode {
  // Configured secrets go only to a node the user named (CALIMERO_NODE_URL, CALIMERO_NODE_NAME, agent.json or
  // their own node home): a port found by probing may be held by any local user, so they are never sent there.
  if (source !== "probe") {
    if (config.authToken !== null) return "token";
    if (config.username !== null && config.password !== null) return "credentials";
  }
  if (handoff !== null && sameNode(handoff.nodeUrl, nodeUrl)) return "handoff";
  return "none";
}

/** Where the credential of `mode` comes from, as node_status and doctor name it. */
export function credentialSource(mode: AuthMode): string | null {
  switch (mode) {
    case "handoff":
      return "agent.json";
    case "token":
      return "CALIMERO_AUTH_TOKEN";
    case "credentials":
      return "CALIMERO_USERNAME";
    case "login":
      return "mero-mcp login";
    case "none":
      return null;
  }
}

/** Whether a token or credentials are configured (whatever node they end up going to). */
export function hasConfiguredSecrets(config: Config): boolean {
  return config.authToken !== null || (config.username !== null && config.password !== null);
}

/**
 * Discovers the node, picks the auth mode and builds its client (what the session does on its first request).
 * Throws DiscoveryError when no node can be settled on; makes no request to the node itself.
 */
export async function connectNode(config: Config, deps: ConnectDeps = {}): Promise<NodeConnection> {
  const handoff = deps.handoff !== undefined ? deps.handoff : await readHandoff(config.stateDir);
  const found = await discoverNode(config, {
    fetch: deps.fetch,
    handoff,
    probeTimeoutMs: deps.probeTimeoutMs,
  });
  let authMode = chooseAuthMode(config, found.url, handoff, found.discoverySource);
  // What `mero-mcp login` stored for this very node, when nothing configured applies (never for a probed port).
  if (authMode === "none" && found.discoverySource !== "probe") {
    const saved = await createTokenStore({
      stateDir: config.stateDir,
      nodeUrl: found.url,
      identity: credentialIdentity("login", config),
    });
    if (await saved.read().catch(() => null) !== null) authMode = "login";
  }
  if (found.discoverySource === "probe" && authMode === "none" && hasConfiguredSecrets(config)) {
    log.warn(
      `The node at ${
        safeOrigin(found.url)
      } was found only by probing a local port, which any local user ` +
        "could be listening on: the configured token or credentials are not sent there. Set CALIMERO_NODE_URL " +
        "to the node's address to use them.",
    );
  }
  if (handoff !== null && authMode !== "handoff") {
    log.info(
      sameNode(handoff.nodeUrl, found.url)
        ? `agent.json names this node too, but ${
          credentialSource(authMode)
        } is configured: that credential ` +
          "is used, not the desktop app's (unset it to use agent.json)."
        : `agent.json names the node at ${safeOrigin(handoff.nodeUrl)}, not ${
          safeOrigin(found.url)
        }: its token is not sent there.`,
    );
  }
  const baseFetch = deps.fetch ?? fetch;
  let auth: TokenAuth | undefined;
  let fetchFn = deps.fetch;
  if (authMode !== "none") {
    const store = await createTokenStore({
      stateDir: config.stateDir,
      nodeUrl: found.url,
      identity: credentialIdentity(authMode, config),
    });
    auth = createTokenAuth({
      mode: authMode,
      config,
      nodeUrl: found.url,
      store,
      handoff,
      http: () => client.http,
    });
    if (authMode === "handoff") {
      // Any 401/403 may mean the desktop app wrote a new agent.json: read it again before the next request.
      const watched = auth;
      fetchFn = async (input, init) => {
        const response = await baseFetch(input, init);
        if (response.status === 401 || response.status === 403) watched.handoffMayHaveChanged();
        return response;
      };
    }
  }
  const client: MeroClient = createMeroClient({
    baseUrl: found.url,
    timeoutMs: config.nodeTimeoutMs,
    auth,
    fetch: fetchFn,
  });
  return {
    client,
    url: client.http.baseUrl, // without userinfo, query or fragment: node_status and list_nodes show it
    nodeName: found.nodeName,
    discoverySource: found.discoverySource,
    authMode,
  };
}

/**
 * What the credential in use may do, read from its token's `permissions` claim (core's auth): `["admin"]` may do
 * everything; null when no token is sent, or it cannot be read (or fetched: a refresh that failed).
 */
export async function credentialPermissions(conn: NodeConnection): Promise<string[] | null> {
  if (conn.authMode === "none") return null;
  const header = await conn.client.authorization().catch(() => null);
  return (header === null ? undefined : decodeJwtClaims(header)?.permissions) ?? null;
}

/** The auth provider of the token modes, plus the handoff re-read trigger. */
export interface TokenAuth extends AuthProvider {
  /** Marks agent.json for a re-read before the next request (after a 401/403 in handoff mode). */
  handoffMayHaveChanged(): void;
}

/** What {@link createTokenAuth} needs. `http` is the node's HTTP core, used for the auth endpoints only. */
export interface TokenAuthOptions {
  mode: Exclude<AuthMode, "none">;
  config: Config;
  nodeUrl: string;
  store: TokenStore;
  handoff: Handoff | null;
  http: () => HttpCore;
}

/**
 * The AuthProvider for handoff, token and credentials modes. Tokens live in the store, shared with other
 * processes: an injected (handoff/env) token only replaces a newer cached one under the injection rule; a
 * refresh spends the refresh token once across processes; credentials log in when nothing is cached and once
 * more when a refresh fails; a revoked family is dropped and never re-injected.
 */
function createTokenAuth(options: TokenAuthOptions): TokenAuth {
  const { mode, config, nodeUrl, store } = options;
  addSecret(config.password);
  const waitMs = Math.max(100, Math.floor(config.nodeTimeoutMs * 0.9));
  const origin = safeOrigin(nodeUrl);
  /** Access tokens the node revoked: never offered to the store again. */
  const rejected = new Set<string>();
  let injected: StoredTokens | null = injectedPair(mode, config, options.handoff);
  let current: StoredTokens | null = null;
  let loading: Promise<void> | null = null;
  let rereadHandoff = false;
  let lastRejectedLogin = -Infinity;

  async function load(): Promise<void> {
    if (injected !== null && !rejected.has(injected.accessToken)) {
      current = await store.inject(injected);
    } else current = await store.read();
  }

  /** Logs in unless another request or process already did (credentials mode). */
  async function ensureLogin(): Promise<void> {
    current = await refreshOnce(
      store,
      "",
      waitMs,
      (stored) => stored ? Promise.resolve(stored) : freshLogin(),
    );
  }

  async function freshLogin(): Promise<StoredTokens> {
    const pair = await login(options.http(), {
      username: config.username!,
      password: config.password!,
    });
    return storedTokens(pair.accessToken, pair.refreshToken);
  }

  /** The handoff's token when agent.json now holds one for this node that was never rejected. */
  async function newHandoffToken(): Promise<StoredTokens | null> {
    const handoff = await readHandoff(config.stateDir);
    if (
      handoff === null || !sameNode(handoff.nodeUrl, nodeUrl) || rejected.has(handoff.accessToken)
    ) return null;
    injected = storedTokens(handoff.accessToken, handoff.refreshToken);
    return injected;
  }

  async function header(): Promise<string | null> {
    loading ??= load().catch((err) => {
      loading = null;
      throw err;
    });
    await loading;
    if (mode === "handoff" && rereadHandoff) {
      rereadHandoff = false;
      const fresh = await newHandoffToken();
      if (fresh !== null && fresh.accessToken !== current?.accessToken) {
        current = await store.inject(fresh);
      }
    }
    if (current === null && mode === "credentials") await ensureLogin();
    return current === null ? null : `Bearer ${current.accessToken}`;
  }

  async function refresh(failedHeader: string, why: "expired" | "rejected"): Promise<boolean> {
    const failed = failedHeader.replace(/^Bearer\s+/i, "");
    if (why === "rejected") return await loginAgain(failed);
    const next = await refreshOnce(store, failed, waitMs, async (stored) => {
      if (mode === "handoff") {
        const fresh = await newHandoffToken();
        if (fresh !== null && fresh.accessToken !== failed && injectedWins(stored, fresh)) {
          return fresh;
        }
      }
      if (stored?.refreshToken) {
        try {
          const pair = await refreshTokens(options.http(), {
            accessToken: stored.accessToken,
            refreshToken: stored.refreshToken,
          });
          return storedTokens(pair.accessToken, pair.refreshToken);
        } catch (err) {
          const revoked = revocationOf(err);
          if (revoked !== null) await drop(stored.accessToken, revoked);
          if (mode !== "credentials") throw refreshProblem(err, revoked, origin, mode);
          log.info(`Refreshing the token for ${origin} failed; logging in again.`);
        }
      }
      return mode === "credentials" ? await freshLogin() : null;
    });
    if (next === null) return false;
    current = next;
    return next.accessToken !== failed;
  }

  /**
   * A token the node rejects outright (a bare 401): in credentials mode, one fresh login replaces it (shared by
   * concurrent requests and processes, and at most once per REJECTED_LOGIN_GAP_MS, so a node that rejects every
   * token is not logged into on every call); other modes have nothing to log in with.
   */
  async function loginAgain(failed: string): Promise<boolean> {
    if (mode !== "credentials" || Date.now() - lastRejectedLogin < REJECTED_LOGIN_GAP_MS) {
      return false;
    }
    const next = await refreshOnce(store, failed, waitMs, async () => {
      lastRejectedLogin = Date.now();
      log.info(`The node at ${origin} rejected the stored token (HTTP 401); logging in again.`);
      return await freshLogin();
    });
    if (next === null) return false;
    current = next;
    return next.accessToken !== failed;
  }

  async function drop(accessToken: string | null, reason: string): Promise<void> {
    if (accessToken !== null) rejected.add(accessToken);
    if (injected !== null) rejected.add(injected.accessToken);
    current = null;
    await store.clear();
    log.warn(
      `The node at ${origin} rejected the stored token (${reason}); it was dropped. ${
        reauthHint(mode)
      }`,
    );
  }

  async function invalidate(reason: "token_revoked"): Promise<void> {
    await drop(current?.accessToken ?? null, reason);
  }

  return {
    header,
    refresh,
    invalidate,
    handoffMayHaveChanged: () => rereadHandoff = true,
  };
}

function injectedPair(
  mode: AuthMode,
  config: Config,
  handoff: Handoff | null,
): StoredTokens | null {
  if (mode === "handoff" && handoff !== null) {
    return storedTokens(handoff.accessToken, handoff.refreshToken);
  }
  if (mode === "token" && config.authToken !== null) {
    return storedTokens(config.authToken, config.refreshToken);
  }
  return null;
}

/** How long after one login for a rejected token another one may run. */
const REJECTED_LOGIN_GAP_MS = 10_000;

/**
 * Why a failed refresh means the token family is gone for good, or null: a replay (`token_reuse`), a revocation
 * (`token_revoked`), or core's 500 for a revoked key, whose key store no longer has it ("Failed to refresh
 * token: Invalid token: Key not found" / "Key is not valid": crates/auth/src/api/handlers/auth.rs,
 * refresh_token_handler's catch-all).
 */
function revocationOf(err: unknown): string | null {
  if (!(err instanceof NodeHttpError)) return null;
  if (err.authError === "token_revoked") return err.authError;
  if (err.status === 500 && /Key (not found|is not valid)/.test(err.body)) return "key revoked";
  return null;
}

/**
 * What a failed refresh means to the person who gave the token, and what to set instead. A reused refresh token
 * (`token_reuse`) revokes a client key's family but never a login's root key (`reuseConsequence`).
 */
function refreshProblem(
  err: unknown,
  revoked: string | null,
  origin: string,
  mode: AuthMode,
): unknown {
  if (revoked !== null) {
    return new Error(
      `The node at ${origin} no longer accepts this token: it was revoked, or this node never issued it (${revoked}). ${
        reauthHint(mode)
      }`,
    );
  }
  if (err instanceof NodeHttpError && err.authError === "token_reuse") {
    return new Error(
      `The refresh token for ${origin} was already used by another client, so this copy is spent (token_reuse). ${
        reuseConsequence(mode)
      } ${reauthHint(mode)}`,
    );
  }
  return err;
}

/**
 * What a replayed refresh token did to the other holder: core revokes the whole family of a client key (a handoff
 * token is one: desktop's "connect AI agent" mints client keys) and spares a root key (a login's), whose other pair
 * stays valid (crates/auth/src/auth/token/jwt.rs `revoke_token_family`). A pasted token may be either.
 */
function reuseConsequence(mode: AuthMode): string {
  switch (mode) {
    case "handoff":
      return "A handoff token is a client key: the node revoked its whole family, the other client's new pair too.";
    case "credentials":
      return "A login's tokens belong to the root key: the other client's new pair stays valid.";
    default:
      return "If the token came from a handoff (a client key) the node revoked its whole family; a login's other pair stays valid.";
  }
}

function reauthHint(mode: AuthMode): string {
  switch (mode) {
    case "handoff":
      return 'Use "connect AI agent" in the Calimero desktop app again (it writes a new agent.json).';
    case "token":
      return "Set a new CALIMERO_AUTH_TOKEN (and CALIMERO_REFRESH_TOKEN) and restart mero-mcp.";
    case "credentials":
      return "The next request logs in again with CALIMERO_USERNAME.";
    case "login":
      return "Run mero-mcp login for this node again.";
    case "none":
      return "";
  }
}
