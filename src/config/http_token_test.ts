// readHttpToken: which token files HTTP mode accepts, and the exit code of each refusal.

import assert from "assert";
import { ConfigError, parseConfig } from "./config.ts";
import { readHttpToken } from "./http_token.ts";

async function configFor(content: string | null, http = true) {
  const dir = await Deno.makeTempDir({ prefix: "mero-mcp-token-" });
  const file = `${dir}/token`;
  if (content !== null) await Deno.writeTextFile(file, content, { mode: 0o600 });
  const argv = [...(http ? ["--http", "127.0.0.1:7331"] : []), "--http-token-file", file];
  return { config: parseConfig(argv, { HOME: dir }), dir };
}

Deno.test("no --http-token-file means no token", async () => {
  assert.equal(await readHttpToken(parseConfig(["--http", "127.0.0.1:1"], { HOME: "/h" })), null);
});

const ACCEPTED: [string, string][] = [
  ["a hex token", "0123456789abcdef"],
  ["a token with its newline", "tok-en_1.2~3+4/5=\n"],
  ["a token with surrounding blanks", "  \tabc \r\n"],
];
for (const [name, content] of ACCEPTED) {
  Deno.test(`a token file holding ${name} is accepted and trimmed`, async () => {
    const { config, dir } = await configFor(content);
    try {
      assert.equal(await readHttpToken(config), content.trim());
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

const REFUSED: { name: string; content: string | null; http?: boolean; exitCode: 1 | 2 }[] = [
  { name: "an empty file", content: "\n", exitCode: 2 },
  { name: "two words", content: "two words", exitCode: 2 },
  { name: "a comma", content: "a,b", exitCode: 2 },
  { name: "two lines", content: "a\nb", exitCode: 2 },
  { name: "non-ASCII", content: "jeton-été", exitCode: 2 },
  { name: "a missing file", content: null, exitCode: 1 },
  { name: "a token file without --http", content: "tok#en", http: false, exitCode: 2 },
];
for (const c of REFUSED) {
  Deno.test(`a token file with ${c.name} is refused with exit code ${c.exitCode}`, async () => {
    const { config, dir } = await configFor(c.content, c.http ?? true);
    try {
      const error = await readHttpToken(config).then(() => null, (e) => e);
      assert.ok(error instanceof ConfigError, `refused: ${error}`);
      assert.equal(error.exitCode, c.exitCode);
      assert.ok(error.message.includes("--http-token-file"));
      if (c.content) assert.ok(!error.message.includes(c.content), "the content is not echoed");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
