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
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { log } from "../lib/log.ts";
import { concatBytes } from "../lib/bytes.ts";

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

/** A fetch-shaped handler, plus a way to stop in-flight modern exchanges. */
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

/**
 * The most connections open at once. One more evicts the connection that has waited longest for a request head (one
 * that never sent one, or idles between requests); with none waiting (all being answered) the newcomer is closed.
 */
export const MAX_CONNECTIONS = 128;
/** How long a new connection may take to send its first request's head. */
export const HEADER_TIMEOUT_MS = 10_000;
/** How long a kept-alive connection may wait for its next request. */
export const IDLE_TIMEOUT_MS = 30_000;
/** How long a request's body may take to arrive. */
export const BODY_TIMEOUT_MS = 30_000;
/** How long an answer may wait for the client to read it (each time the socket's buffer is full). */
export const WRITE_TIMEOUT_MS = 10_000;
/**
 * The most requests one connection may have unanswered at once: pipelining past it closes the connection, so a
 * client that sends and never reads holds at most this many answers in memory.
 */
export const MAX_PIPELINED = 4;

/**
 * Serves the handler on the loopback address and logs the URL once it listens. It runs on `node:http` rather than
 * `Deno.serve` because the connections themselves must be bounded, before any request is read: at most
 * MAX_CONNECTIONS at once, each closed when it sends no request head in time, idles between requests, trickles its
 * body, pipelines past MAX_PIPELINED or leaves an answer unread past WRITE_TIMEOUT_MS. When all slots are taken, the
 * connection that has waited longest for a request head gives its slot to the newcomer: holders that never send
 * a request cannot keep out a client that does, however fast they reconnect, and a request being answered (an
 * authenticated client's among them) is never cut for a newcomer. An accept error (EMFILE) is logged and never fatal.
 */
export async function serveHttp(
  address: ListenAddress,
  options: HttpHandlerOptions,
): Promise<HttpServer> {
  const handler = createHttpHandler(options);
  const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
  const connections = createConnections(MAX_CONNECTIONS);
  const server = createServer((req, res) =>
    void serveOne(handler, host, connections.of(req.socket), req, res)
  );
  server.on("connection", (socket: Socket) => connections.add(socket));
  server.on("error", (error: Error) => log.warn(`http: ${error.message}`));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(address.port, address.hostname, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    throw new Error(
      `cannot listen on ${host}:${address.port}: ${
        (error as Error).message
      }. Pick another port for --http.`,
    );
  }
  const port = (server.address() as { port: number }).port;
  const url = `http://${host}:${port}${MCP_PATH}`;
  log.info(`listening on ${url}${options.token === null ? "" : " (bearer token required)"}`);
  return {
    url,
    async shutdown() {
      await handler.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One connection as the server tracks it: what it owes (a request head, by a deadline) and what it has asked. */
export interface Connection {
  /** A request arrived: no deadline while it is answered; false when the connection pipelines past the bound. */
  begin(): boolean;
  /** An answer was sent: the connection owes its next request within IDLE_TIMEOUT_MS. */
  end(): void;
}

/** The open connections, bounded at `max`: see {@link serveHttp}. */
export interface Connections {
  add(socket: Socket): void;
  of(socket: Socket): Connection;
}

/** The connection registry of one server. */
export function createConnections(max: number): Connections {
  /** Each open socket, with when it began to owe a request head (null while it has requests being answered). */
  const open = new Map<
    Socket,
    { waitingSince: number | null; outstanding: number; timer?: ReturnType<typeof setTimeout> }
  >();
  const owe = (socket: Socket, ms: number) => {
    const state = open.get(socket);
    if (!state) return;
    clearTimeout(state.timer);
    state.waitingSince = performance.now();
    state.timer = setTimeout(() => socket.destroy(), ms);
  };
  const connectionOf = (socket: Socket): Connection => ({
    begin() {
      const state = open.get(socket);
      if (!state) return false;
      clearTimeout(state.timer);
      state.waitingSince = null;
      if (++state.outstanding > MAX_PIPELINED) {
        socket.destroy();
        return false;
      }
      return true;
    },
    end() {
      const state = open.get(socket);
      if (state && --state.outstanding === 0) owe(socket, IDLE_TIMEOUT_MS);
    },
  });
  return {
    add(socket) {
      if (open.size >= max) {
        let oldest: Socket | null = null;
        let since = Infinity;
        for (const [other, state] of open) {
          if (state.waitingSince !== null && state.waitingSince < since) {
            oldest = other;
            since = state.waitingSince;
          }
        }
        if (oldest === null) {
          socket.destroy(); // every slot is answering a request: the newcomer waits for none of them
          return;
        }
        oldest.destroy();
        forget(oldest);
      }
      open.set(socket, { waitingSince: null, outstanding: 0 });
      owe(socket, HEADER_TIMEOUT_MS);
      socket.on("close", () => forget(socket));
    },
    of: connectionOf,
  };
  function forget(socket: Socket) {
    clearTimeout(open.get(socket)?.timer);
    open.delete(socket);
  }
}

/** One request: its body read within bounds, handed to the handler as a `Request`, the `Response` written back. */
async function serveOne(
  handler: HttpHandler,
  host: string,
  connection: Connection,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (!connection.begin()) return;
  const abort = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) abort.abort(); // the client left: cancel what it asked for
    connection.end();
  });
  try {
    const body = await readBody(req);
    if (body instanceof Response) return await writeResponse(res, body);
    const headers = new Headers();
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    }
    const method = req.method ?? "GET";
    const request = new Request(new URL(req.url ?? "/", `http://${host}`), {
      method,
      headers,
      body: method === "GET" || method === "HEAD" ? undefined : body as Uint8Array<ArrayBuffer>,
      signal: abort.signal,
    });
    await writeResponse(res, await handler.fetch(request));
  } catch (error) {
    if (abort.signal.aborted || res.destroyed) return; // the client left, or read too slowly: nothing to tell it
    log.error(`http: a request failed: ${error}`);
    if (!res.headersSent) {
      await writeResponse(res, jsonRpcError(500, "Internal server error.", -32603)).catch(() => {});
    } else res.destroy();
  }
}

/**
 * The request's body, or the answer for one too large (413: the rest is read and dropped, so the client sees the
 * answer rather than a reset, up to a bound) or too slow (408).
 */
async function readBody(req: IncomingMessage): Promise<Uint8Array | Response> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const timer = setTimeout(() => req.destroy(new Error("body timeout")), BODY_TIMEOUT_MS);
  try {
    for await (const chunk of req) {
      size += (chunk as Uint8Array).length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        if (size > 4 * MAX_BODY_BYTES) break;
      } else chunks.push(chunk as Uint8Array);
    }
  } catch {
    return jsonRpcError(408, `The request body did not arrive within ${BODY_TIMEOUT_MS / 1000} s.`);
  } finally {
    clearTimeout(timer);
  }
  if (size > MAX_BODY_BYTES) {
    return jsonRpcError(413, `Request body too large: at most ${MAX_BODY_BYTES} bytes.`);
  }
  return concatBytes(chunks, size);
}

/**
 * Writes the answer; a client that leaves it unread (the socket's buffer full) for WRITE_TIMEOUT_MS loses the
 * connection, and with it the answer's memory.
 */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => headers[key] = value);
  res.writeHead(response.status, headers);
  if (response.body) {
    for await (const chunk of response.body) {
      if (!res.write(chunk)) await drained(res);
    }
  }
  res.end();
  if (!res.writableFinished) await drained(res);
}

/**
 * Resolves when `res` drains (or, once ended, finishes); destroys it (and throws) when it does not within
 * WRITE_TIMEOUT_MS, or closes first.
 */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      res.off("drain", onDrain);
      res.off("finish", onDrain);
      res.off("close", onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new Error("the client closed the connection"));
    const timer = setTimeout(() => {
      res.destroy();
      done(new Error(`the client read nothing for ${WRITE_TIMEOUT_MS / 1000} s`));
    }, WRITE_TIMEOUT_MS);
    res.on("drain", onDrain);
    res.on("finish", onDrain);
    res.on("close", onClose);
  });
}
