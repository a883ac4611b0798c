// B2's direct client in its own process, like the server is: for each stdin line `N` it makes N sequential
// `POST /jsonrpc` "get" calls to the node and answers one line with their round trips in ms (JSON array).
// Usage: deno run --allow-net tests/bench/direct_client.ts <node url> <context id>

const [url, contextId] = Deno.args;
const encoder = new TextEncoder();
let id = 0;

async function once(): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/jsonrpc`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method: "execute",
      params: { contextId, method: "get", argsJson: { key: "k" } },
    }),
  });
  const body = JSON.parse(await response.text());
  const elapsed = performance.now() - started;
  if (body.result?.output === undefined) throw new Error(`direct call: ${JSON.stringify(body)}`);
  return elapsed;
}

let buffer = "";
for await (const text of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  buffer += text;
  let newline;
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const count = Number(buffer.slice(0, newline));
    buffer = buffer.slice(newline + 1);
    const times: number[] = [];
    for (let i = 0; i < count; i++) times.push(await once());
    await Deno.stdout.write(encoder.encode(JSON.stringify(times) + "\n"));
  }
}
