import assert from "assert";
import denoJson from "../deno.json" with { type: "json" };
import { SERVER_RUN_ARGS } from "./run_args.ts";
import { compileArgs } from "./compile.ts";

Deno.test("`deno task dev` and the compiled executable run the server as the tests do", () => {
  assert.equal(denoJson.tasks.dev, `deno ${SERVER_RUN_ARGS.join(" ")} main.ts`);
  const v8 = SERVER_RUN_ARGS.find((a) => a.startsWith("--v8-flags="));
  assert.ok(v8 && compileArgs(null).includes(v8), "deno compile bakes the same V8 flags in");
});
