// HTTP mode: the server factory on loopback `http://<host:port>/mcp`, stateless, one JSON body per
// request. Every request passes the Host/Origin checks and the optional bearer token before it reaches either era.

import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServerFactory,
  OAuthError,
  OAuthErrorCode,
  originValidationResponse,
  requireBearerAuth,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { log } from "../log.ts";

/** The one path MCP is served on. */
export const MCP_PATH = "/mcp";

/** Largest request body accepted; a larger one gets 413 (the same bound as a stdio line). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Inputs of {@link createHttpHandler}. */
export interface HttpHandlerOptions {
  /** The same factory stdio uses; called once per request here. */
  factory: McpServerFactory;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token: string | null;
}

/** A fetch-shaped handler for `Deno.serve`, plus a way to stop in-flight modern exchanges. */
export interface HttpHandler {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Builds the request handler: 403 for a non-loopback Host or Origin, 401 without the token, 404 off `/mcp`, then
 * 2025-era requests to a fresh stateless JSON-mode transport and 2026-07-28 requests to `createMcpHandler`.
 */
export function createHttpHandler(options: HttpHandlerOptions): HttpHandler {
  const { factory } = options;
  const onerror = (error: Error) => log.debug(`http: ${error.message}`);
  const modern = withQuietJsonWarning(() =>
    createMcpHandler(factory, {
      legacy: "reject",
      responseMode: "json",
      maxRequestBodySize: MAX_BODY_BYTES,
      onerror,
    })
  );
  const gate = options.token === null ? null : requireBearerAuth({
    verifier: { verifyAccessToken: tokenVerifier(options.token) },
  });
  const allowedHosts = localhostAllowedHostnames();
  const allowedOrigins = localhostAllowedOrigins();

  return {
    async fetch(request) {
      const rejected = hostHeaderValidationResponse(request, allowedHosts) ??
        originValidationResponse(request, allowedOrigins);
      if (rejected) return rejected;
      const auth = gate ? await gate(request) : undefined;
      if (auth instanceof Response) return auth;
      if (new URL(request.url).pathname !== MCP_PATH) {
        return jsonRpcError(404, `Not found: MCP is served at ${MCP_PATH} only.`);
      }
      const legacy = await isLegacyRequest(request, undefined, {
        maxRequestBodySize: MAX_BODY_BYTES,
      });
      if (legacy) return await serveLegacy(factory, request, onerror);
      return await modern.fetch(request, auth ? { authInfo: auth } : undefined);
    },
    close: () => modern.close(),
  };
}

/**
 * Serves one 2025-era request: a fresh instance on a session-less transport answering with one JSON body, torn
 * down once the answer exists. GET and DELETE (session operations) get 405: there is no session and no stream.
 */
async function serveLegacy(
  factory: McpServerFactory,
  request: Request,
  onerror: (error: Error) => void,
): Promise<Response> {
  if (request.method.toUpperCase() !== "POST") {
    return jsonRpcError(
      405,
      "Method not allowed: this endpoint is stateless and has no event stream.",
    );
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  let server: Awaited<ReturnType<McpServerFactory>> | undefined;
  try {
    server = await factory({ era: "legacy", requestInfo: request });
    await server.connect(transport);
    return await transport.handleRequest(request);
  } catch (error) {
    onerror(error instanceof Error ? error : new Error(String(error)));
    return jsonRpcError(500, "Internal server error.", -32603);
  } finally {
    transport.close().catch(() => {});
    server?.close().catch(() => {});
  }
}

/**
 * The bearer verifier: a constant-time comparison of SHA-256 digests (the length of the token leaks nothing
 * either). A match never expires: the token lives as long as the file it came from.
 */
export function tokenVerifier(
  expected: string,
): (
  token: string,
) => Promise<{ token: string; clientId: string; scopes: string[]; expiresAt: number }> {
  const expectedDigest = digest(expected);
  return async (token) => {
    if (!equalBytes(await expectedDigest, await digest(token))) {
      throw new OAuthError(OAuthErrorCode.InvalidToken, "The bearer token does not match.");
    }
    return { token, clientId: "mero-mcp-http", scopes: [], expiresAt: Number.MAX_SAFE_INTEGER };
  };
}

async function digest(text: string): Promise<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** Compares two equal-length byte arrays without an early exit. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

function jsonRpcError(status: number, message: string, code = -32000): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });
}

/**
 * `createMcpHandler` warns on the console that JSON mode drops mid-call notifications. That is this mode's
 * documented contract, and stderr lines must carry our prefix, so the warning goes to the debug log instead.
 */
function withQuietJsonWarning<T>(create: () => T): T {
  // deno-lint-ignore no-console -- swapping the SDK's console warning out, not writing to the console
  const warn = console.warn;
  // deno-lint-ignore no-console -- as above
  console.warn = (...args: unknown[]) => log.debug(args.map(String).join(" "));
  try {
    return create();
  } finally {
    // deno-lint-ignore no-console -- as above
    console.warn = warn;
  }
}

/** The listen address of `--http`. */
export interface ListenAddress {
  hostname: string;
  port: number;
}

/** A running HTTP server. */
export interface HttpServer {
  /** `http://<host:port>/mcp`, with the port actually bound. */
  url: string;
  /** Stops accepting, lets in-flight requests finish, closes the modern leg. */
  shutdown(): Promise<void>;
}

/** Starts `Deno.serve` on the loopback address and logs the URL once it listens. */
export async function serveHttp(
  address: ListenAddress,
  options: HttpHandlerOptions,
): Promise<HttpServer> {
  const handler = createHttpHandler(options);
  const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
  const listening = Promise.withResolvers<number>();
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname: address.hostname,
      port: address.port,
      onListen: ({ port }) => listening.resolve(port),
      onError: (error) => {
        log.error(`http: a request failed: ${error}`);
        return jsonRpcError(500, "Internal server error.", -32603);
      },
    }, (request) => handler.fetch(request));
  } catch (error) {
    throw new Error(
      `cannot listen on ${host}:${address.port}: ${
        (error as Error).message
      }. Pick another port for --http.`,
    );
  }
  const port = await listening.promise;
  const url = `http://${host}:${port}${MCP_PATH}`;
  log.info(`listening on ${url}${options.token === null ? "" : " (bearer token required)"}`);
  return {
    url,
    async shutdown() {
      await handler.close();
      await server.shutdown();
    },
  };
}
