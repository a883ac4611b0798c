// Reads the `--http-token-file` for HTTP mode, in the main thread (the worker cannot read outside the state dir).
// The token travels to the worker in the config message and is never logged.

import { type Config, ConfigError } from "./config.ts";
import { log } from "../lib/log.ts";

/** A token is one header-safe word: printable ASCII without spaces or commas (RFC 6750 bearer syntax). */
const TOKEN = /^[\x21-\x2b\x2d-\x7e]+$/;

/**
 * The bearer token HTTP mode requires, or null when no `--http-token-file` was given. Throws {@link ConfigError}
 * for a token file without `--http` or content that cannot be a bearer token (exit 2), or an unreadable file (exit 1).
 */
export async function readHttpToken(config: Config): Promise<string | null> {
  const file = config.httpTokenFile;
  if (file === null) return null;
  if (config.http === null) {
    throw new ConfigError(
      `--http-token-file "${file}" is set without --http. Add --http 127.0.0.1:<port>, or drop the token file.`,
    );
  }
  let text: string;
  try {
    text = await Deno.readTextFile(file);
    if (Deno.build.os !== "windows" && ((await Deno.stat(file)).mode ?? 0) & 0o077) {
      log.warn(`--http-token-file "${file}" is readable by other users; chmod 600 it.`);
    }
  } catch (error) {
    throw new ConfigError(
      `Cannot read --http-token-file "${file}": ${
        (error as Error).message
      }. Fix the path or its permissions.`,
      1,
    );
  }
  const token = text.trim();
  if (!TOKEN.test(token)) {
    throw new ConfigError(
      `--http-token-file "${file}" does not hold a usable token: it must be one word of printable ASCII without spaces or commas (it is sent as "Authorization: Bearer <token>"). Write e.g. 32 random hex bytes into it.`,
    );
  }
  return token;
}
