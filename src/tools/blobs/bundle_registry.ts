// A bundle registry (CALIMERO_REGISTRY_URL): a package@version looked up, its artifact's URL handed to the node.

import { redactUrl } from "../../answer/errors.ts";
import { transportCause } from "../../mero/mod.ts";

/** How a package@version is written, as the messages show it. */
export const COORDS_FORM = '"package@version", e.g. "com.calimero.kv-store@1.0.0"';

/** `package@version` split at its last `@`; either half empty is an error showing the form. */
export function parseCoords(coords: string): { pkg: string; version: string } {
  const at = coords.lastIndexOf("@");
  const pkg = at < 0 ? "" : coords.slice(0, at).trim();
  const version = at < 0 ? "" : coords.slice(at + 1).trim();
  // "." and ".." would be resolved as path segments in the registry URL and point the check elsewhere.
  if (
    pkg === "" || version === "" || [pkg, version].some((part) => part === "." || part === "..")
  ) {
    throw new Error(`coords "${coords}" is not of the form ${COORDS_FORM}.`);
  }
  return { pkg, version };
}

/**
 * Checks that the registry has the bundle (`GET {registry}/api/v2/bundles/{pkg}/{ver}`) and returns the
 * install request for its artifact (`{registry}/artifacts/{pkg}/{ver}/{pkg}-{ver}.mpk`).
 */
export async function registryInstall(
  registryUrl: string | null,
  coords: string,
  options: { signal?: AbortSignal; timeoutMs: number; fetch?: typeof fetch },
): Promise<{ url: string; package: string; version: string }> {
  const { pkg, version } = parseCoords(coords);
  if (registryUrl === null) {
    throw new Error(
      `Installing "${coords}" needs an app registry: set CALIMERO_REGISTRY_URL (or --registry-url), or pass url instead.`,
    );
  }
  const base = registryUrl;
  const p = encodeURIComponent(pkg);
  const v = encodeURIComponent(version);
  const check = registryRequest(base, `/api/v2/bundles/${p}/${v}`);
  const signals = [AbortSignal.timeout(options.timeoutMs)];
  if (options.signal) signals.push(options.signal);
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(check.url, {
      headers: check.headers,
      signal: AbortSignal.any(signals),
      redirect: "manual",
    });
  } catch (error) {
    throw new Error(
      `Cannot reach the app registry at ${redactUrl(base)}: ${transportCause(error)}.`,
    );
  }
  await response.body?.cancel();
  if (response.status === 404) {
    throw new Error(
      `The registry at ${
        redactUrl(base)
      } has no bundle ${pkg} version ${version}. Check the package name and version.`,
    );
  }
  if (!response.ok) {
    throw new Error(
      `The registry at ${redactUrl(base)} answered HTTP ${response.status} for ${pkg}@${version}.`,
    );
  }
  return { url: registryPath(base, `/artifacts/${p}/${v}/${p}-${v}.mpk`), package: pkg, version };
}

/**
 * `path` appended to the registry's own path, keeping its query string (which may carry a token) after it.
 * The node downloads this URL itself, so userinfo stays in it.
 */
function registryPath(base: string, path: string): string {
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/+$/, "") + path;
  return url.href;
}

/** The same URL for our own fetch: fetch refuses userinfo, so it travels as HTTP Basic auth instead. */
function registryRequest(base: string, path: string): { url: string; headers: Headers } {
  const url = new URL(registryPath(base, path));
  const headers = new Headers({ "accept-encoding": "identity" });
  if (url.username || url.password) {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    headers.set("authorization", `Basic ${btoa(`${user}:${password}`)}`);
    url.username = "";
    url.password = "";
  }
  return { url: url.href, headers };
}
