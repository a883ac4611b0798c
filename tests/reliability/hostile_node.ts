// A scriptable hostile node for R7: a loopback server whose every answer comes from a function the test sets,
// so a test can send what no honest node would (gzip bombs, redirects, deep JSON). Bounded: it only listens on
// 127.0.0.1 and is closed by the test.

/** A running hostile node. */
export interface HostileNode {
  url: string;
  port: number;
  /** Every request received: method and path (with its query). */
  requests: string[];
  /** Replaces the answer function. */
  answer(fn: (req: Request, url: URL) => Response | Promise<Response>): void;
  close(): Promise<void>;
}

/** The health answer an honest node gives, so discovery and the session accept the hostile one. */
export function healthy(url: URL): Response | null {
  if (url.pathname === "/admin-api/health") return Response.json({ data: { status: "alive" } });
  if (url.pathname === "/admin-api/identity") {
    return Response.json({
      data: {
        accountId: "aa".repeat(32),
        deviceId: null,
        publicKey: "11111111111111111111111111111111",
      },
    });
  }
  return null;
}

/** Starts a hostile node; by default it answers like an empty honest node. */
export function startHostileNode(): HostileNode {
  let handler = (_req: Request, url: URL): Response | Promise<Response> =>
    healthy(url) ?? Response.json({ data: { apps: [] } });
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    return handler(req, url);
  });
  const port = server.addr.port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    answer(fn) {
      handler = fn;
    },
    close: () => server.shutdown(),
  };
}

/** A gzip stream of `size` spaces inside a JSON string: tiny on the wire, huge once inflated. */
export async function gzipBomb(prefix: string, size: number, suffix: string): Promise<Uint8Array> {
  const chunk = new TextEncoder().encode(" ".repeat(1 << 20));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(prefix));
      for (let sent = 0; sent < size; sent += chunk.length) controller.enqueue(chunk);
      controller.enqueue(new TextEncoder().encode(suffix));
      controller.close();
    },
  }).pipeThrough(
    new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
