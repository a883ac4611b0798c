// Starting the real process in HTTP mode for end-to-end tests (built on harness.ts): spawn with `--http` on a free
// loopback port, wait for the "listening on" line on stderr, stop with SIGTERM. Plus a raw HTTP/1.1 request.

import { isolatedEnv, ROOT, serverCommand, unusedPort } from "./harness.ts";

/** A running `mero-mcp --http` process. */
export interface HttpProcess {
  /** The URL the server printed, e.g. `http://127.0.0.1:40123/mcp`. */
  url: string;
  port: number;
  pid: number;
  /** Null while the process runs. */
  exitCode(): number | null;
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number>;
}

/** Options of {@link startHttp}. */
export interface StartHttpOptions {
  /** Extra flags after `--http 127.0.0.1:<port>`. */
  args?: string[];
  env?: Record<string, string>;
  /** How long to wait for the listening line. */
  timeoutMs?: number;
  /** A command the server runs under (e.g. `["prlimit", "--nofile=512:512", "--"]`). */
  prefix?: string[];
}

const LISTENING = /listening on (http:\/\/\S+)/;

/** Spawns the server in HTTP mode (stdin is closed at once: HTTP mode must ignore it) and waits until it listens. */
export async function startHttp(options: StartHttpOptions = {}): Promise<HttpProcess> {
  const port = await unusedPort();
  const server = serverCommand();
  const [command, ...args] = [...options.prefix ?? [], server.command, ...server.args];
  const child = new Deno.Command(command, {
    args: [...args, "--http", `127.0.0.1:${port}`, ...(options.args ?? [])],
    env: options.env ?? await isolatedEnv(),
    clearEnv: true,
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const listening = Promise.withResolvers<string>();
  const reading = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr += chunk;
      const match = LISTENING.exec(stderr);
      if (match) listening.resolve(match[1]);
    }
  })();
  const status = child.status;
  let exitCode: number | null = null;
  status.then((s) => exitCode = s.code);
  status.then((s) =>
    listening.reject(new Error(`the server exited (${s.code}) before listening:\n${stderr}`))
  );
  const timer = setTimeout(
    () => listening.reject(new Error(`the server did not listen in time:\n${stderr}`)),
    options.timeoutMs ?? 15_000,
  );
  let url: string;
  try {
    url = await listening.promise;
  } catch (error) {
    kill(child, "SIGKILL");
    await status;
    await reading;
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return {
    url,
    port,
    pid: child.pid,
    exitCode: () => exitCode,
    stderr: () => stderr,
    async stop() {
      kill(child, "SIGTERM");
      const { code } = await status;
      await reading;
      return code;
    },
  };
}

/** Signals the child unless it has already exited. */
function kill(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch {
    // it has already exited
  }
}

/** The status code and body of one raw HTTP/1.1 exchange: lets a test send a `Host` header fetch would replace. */
export async function rawHttp(
  port: number,
  head: string[],
  body = "",
): Promise<{ status: number; text: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const bytes = new TextEncoder().encode(body);
  const lines = [...head, `Content-Length: ${bytes.length}`, "Connection: close", "", ""];
  await conn.write(new TextEncoder().encode(lines.join("\r\n")));
  if (bytes.length > 0) await conn.write(bytes);
  let text = "";
  for await (const chunk of conn.readable.pipeThrough(new TextDecoderStream())) text += chunk;
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  return { status, text };
}
