// The permission sandbox, proven from inside the running server (R4): the probe worker loads the
// real server and tries to escape; every attempt outside the state dir and the node's address fails NotCapable.

import assert from "assert";
import { isolatedEnv, spawnEntry } from "./harness.ts";

/** Runs the probe entry (the real server plus a probe) and returns what each escape attempt gave. */
async function probe(
  env: Record<string, string>,
  args: string[] = [],
): Promise<Record<string, string>> {
  const child = spawnEntry("tests/sandbox/probe_main.ts", env, args);
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("[probe] ")) {
    const { value, done } = await stderr.read();
    if (done) break;
    text += value;
  }
  if (args.includes("--http")) child.kill("SIGTERM");
  else await child.stdin.close();
  await child.status;
  await child.stdout.cancel();
  await stderr.cancel();
  const line = text.split("\n").find((l) => l.startsWith("[probe] "));
  assert.ok(line, `the probe reported:\n${text}`);
  return JSON.parse(line.slice("[probe] ".length)) as Record<string, string>;
}

Deno.test("with --http 127.0.0.1:0 the worker gets the one port picked, not the whole loopback range", async () => {
  const env = await isolatedEnv();
  const results = await probe(env, ["--http", "127.0.0.1:0"]);
  assert.equal(results.otherPort, "NotCapable", "another local port stays out of reach");
});

Deno.test("inside the running server, everything outside the state dir and node address is NotCapable", async () => {
  const env = await isolatedEnv();
  const nodeHome = env.CALIMERO_NODE_HOME;
  await Deno.mkdir(`${nodeHome}/default`, { recursive: true });
  await Deno.writeTextFile(
    `${nodeHome}/default/config.toml`,
    '[server]\nlisten = ["/ip4/127.0.0.1/tcp/2528"]\n[identity]\nkeypair = "secret-key"\n',
  );
  const results = await probe(env);
  assert.equal(results.writeStateDir, "ok", "the state dir is writable");
  assert.equal(results.spawnSelf, "ok", "code mode's runner: this executable may be started");
  for (
    const key of [
      "readNodeHome",
      "listNodeHome",
      "readEtc",
      "writeOutside",
      "otherHost",
      "otherPort",
      "env",
      "spawn",
      "spawnShell",
      "ffi",
      "sys",
    ]
  ) {
    assert.equal(results[key], "NotCapable", `${key} must fail with NotCapable`);
  }
  if (Deno.build.os !== "windows") {
    const mode = (await Deno.stat(env.CALIMERO_MCP_STATE_DIR)).mode! & 0o777;
    assert.equal(mode, 0o700, "the state dir is 0700");
  }
});
