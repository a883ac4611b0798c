import assert from "assert";
import { parseArgs } from "./main.ts";

Deno.test("sim-node flags parse into options, and wrong ones give a message", () => {
  assert.deepEqual(parseArgs([]), { port: 2528 });
  assert.deepEqual(
    parseArgs(["--port", "0", "--auth", "u:p:q", "--keep-abi-docs", "--no-abi-route"]),
    { port: 0, auth: { username: "u", password: "p:q" }, keepAbiDocs: true, abiRoute: false },
  );
  const cases: [string[], RegExp][] = [
    [["--port", "x"], /--port needs a number/],
    [["--auth", "nouser"], /--auth needs user:pass/],
    [["--auth", ":p"], /--auth needs user:pass/],
    [["--bogus"], /Unknown argument "--bogus"/],
    [["--help"], /^Usage:/],
  ];
  for (const [args, pattern] of cases) {
    assert.match(String(parseArgs(args)), pattern, args.join(" "));
  }
});
