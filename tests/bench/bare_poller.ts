// B4's floor: the least a process polling the node's application list can cost. It fetches the list every second
// and reads the whole answer, as the server does, and nothing else: no worker, no parsing, no catalog.
// `deno run --allow-net tests/bench/bare_poller.ts <url>`

const url = Deno.args[0];
setInterval(async () => {
  const answer = await fetch(url);
  await answer.arrayBuffer();
}, 1_000);
