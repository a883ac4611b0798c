import assert from "assert";
import { compileArgs, WORKER_INCLUDE } from "./compile.ts";

Deno.test("the compiled binary includes the worker module main.ts starts, which exists", async () => {
  assert.equal(WORKER_INCLUDE, "src/server/index.ts");
  assert.ok((await Deno.stat(new URL(`../${WORKER_INCLUDE}`, import.meta.url))).isFile);
  for (const target of [null, "x86_64-pc-windows-msvc"]) {
    const args = compileArgs(target);
    assert.equal(args[args.indexOf("--include") + 1], WORKER_INCLUDE);
    assert.ok(args.includes("-P=server") && args.includes("--unstable-worker-options"));
  }
  assert.ok(
    compileArgs("x86_64-pc-windows-msvc").includes("dist/mero-mcp-x86_64-pc-windows-msvc.exe"),
  );
});
