// B2's direct client, in its own process like the server. Each stdin line is a JSON job
// `{ count, contextId, method, args, applicationId? }`: `count` sequential POST /jsonrpc executes, or, with
// `applicationId`, `count` times the node requests a generated call makes (GET the app ∥ GET its contexts,
// then the execute). It answers one line: the round trips in ms (JSON array). Bodies are read, not parsed.
// Usage: deno run --allow-net tests/bench/direct_client.ts <node url>

const [url] = Deno.args;
const encoder = new TextEncoder();
let id = 0;

interface Job {
  count: number;
  contextId: string;
  method: string;
  args: Record<string, unknown>;
  applicationId?: string;
  /** With applicationId: the checks and the execute at once, as a generated call of a view makes them. */
  concurrent?: boolean;
}

async function get(path: string): Promise<void> {
  const response = await fetch(`${url}${path}`, { headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status}`);
  await response.arrayBuffer();
}

async function execute(job: Job): Promise<void> {
  const response = await fetch(`${url}/jsonrpc`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method: "execute",
      params: { contextId: job.contextId, method: job.method, argsJson: job.args },
    }),
  });
  const text = await response.text();
  if (!text.includes('"result"')) throw new Error(`direct execute: ${text.slice(0, 300)}`);
}

async function once(job: Job): Promise<number> {
  const started = performance.now();
  if (job.applicationId !== undefined) {
    const app = encodeURIComponent(job.applicationId);
    await Promise.all([
      get(`/admin-api/applications/${app}`),
      get(`/admin-api/contexts/for-application/${app}`),
      ...(job.concurrent ? [execute(job)] : []),
    ]);
  }
  if (!job.concurrent) await execute(job);
  return performance.now() - started;
}

let buffer = "";
for await (const text of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  buffer += text;
  let newline;
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const job = JSON.parse(buffer.slice(0, newline)) as Job;
    buffer = buffer.slice(newline + 1);
    const times: number[] = [];
    for (let i = 0; i < job.count; i++) times.push(await once(job));
    await Deno.stdout.write(encoder.encode(JSON.stringify(times) + "\n"));
  }
}
