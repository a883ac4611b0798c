import assert from "assert";

Deno.test("with the guard loaded, no console method writes to stdout", async () => {
  const script = [
    `import ${JSON.stringify(new URL("./stdio_guard.ts", import.meta.url).href)};`,
    'console.log("a"); console.info("b"); console.debug("c"); console.dir({ d: 1 }); console.dirxml("e");',
    'console.table([{ f: 1 }]); console.count("g"); console.countReset("g"); console.time("h");',
    'console.timeLog("h"); console.timeEnd("h"); console.group("i"); console.groupEnd(); console.trace("j");',
    'console.assert(false, "k"); console.warn("l"); console.error("m");',
  ].join("\n");
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, script);
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--allow-read", file],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(out.stdout), "", "stdout stays empty");
    const stderr = new TextDecoder().decode(out.stderr);
    for (const word of ["a", "{ d: 1 }", "g: 1", "h: ", "m"]) {
      assert.ok(stderr.includes(word), word);
    }
  } finally {
    await Deno.remove(file);
  }
});
