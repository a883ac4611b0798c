import assert from "assert";
import { HELP_TEXT } from "./help.ts";
import { CONFIG_ENV_VARS, FLAGS, parseConfig } from "../config/config.ts";

Deno.test("--help names every flag the parser takes and every variable it reads but the runner's cache", () => {
  for (const flag of Object.keys(FLAGS)) assert.ok(HELP_TEXT.includes(flag), flag);
  const runnerOnly = ["DENO_DIR", "HOME", "XDG_CACHE_HOME", "LOCALAPPDATA", "USERPROFILE"];
  for (const name of CONFIG_ENV_VARS.filter((n) => !runnerOnly.includes(n))) {
    assert.ok(HELP_TEXT.includes(name), name);
  }
  // A flag --help shows is one the parser takes.
  for (const [, flag] of HELP_TEXT.matchAll(/^ {2}(--[a-z-]+)/gm)) {
    assert.ok(flag in FLAGS, flag);
  }
  assert.match(HELP_TEXT, /default 72000/);
  assert.equal(parseConfig([], { HOME: "/h" }).resultChars, 72_000);
});
