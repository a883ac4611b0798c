// B3's floor: a process that answers each stdin request with a JSON-RPC answer of about `size` bytes (its id
// echoed), written to stdout in one write as the server writes its answers. Timing it with the bench client shows
// what moving that many bytes through the pipe and reading them costs, before any server work.

const size = Number(Deno.args[0] ?? 4_000_000);
const encoder = new TextEncoder();
const body = encoder.encode(
  `,"result":{"tools":[${'"x",'.repeat(Math.max(1, size / 4) | 0)}"x"]}}\n`,
);
const out = Deno.stdout.writable.getWriter();
const decoder = new TextDecoder();
let buffered = "";
for await (const chunk of Deno.stdin.readable) {
  buffered += decoder.decode(chunk, { stream: true });
  let newline;
  while ((newline = buffered.indexOf("\n")) !== -1) {
    const request = JSON.parse(buffered.slice(0, newline));
    buffered = buffered.slice(newline + 1);
    if (request.id === undefined) continue;
    const head = encoder.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)}`);
    const answer = new Uint8Array(head.length + body.length);
    answer.set(head);
    answer.set(body, head.length);
    await out.write(answer);
  }
}
