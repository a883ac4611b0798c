// The blobs toolset: installing and uninstalling applications, and the node's blob store. An install
// waits for one catalog refresh, so the new app's tools exist when its result arrives.

import { contextArg } from "./context_arg.ts";
import { z } from "zod";
import {
  callOptions,
  confirmed,
  defineTool,
  DESTRUCTIVE,
  output,
  READ_ONLY,
  type Tool,
  whileWaiting,
  WRITE,
} from "./tool.ts";
import { describeError, redactUrl } from "../answer/errors.ts";
import { jsonResult, textResult } from "../answer/result.ts";
import { blobIdOf, contentHash } from "../primitives/blob_hash.ts";
import { oneLine } from "../lib/text.ts";
import { fromOffset, listOutput, listPage, pageInput } from "./list.ts";
import { appName } from "../apps/resolve.ts";
import { INSTALL_TIMEOUT_MS, NodeHttpError, transportCause } from "../mero/mod.ts";
import { installUrlProblem } from "./install_url.ts";
import { log } from "../lib/log.ts";
import type { ToolDeps } from "./deps.ts";
import { applicationParam, contextParam, nonEmpty } from "./params.ts";

/** The largest blob `upload_blob` accepts, decoded. */
export const MAX_BLOB_BYTES = 10 * 1024 * 1024;

const COORDS_FORM = '"package@version", e.g. "com.calimero.kv-store@1.0.0"';

/** The blobs tools, in listing order. */
export function blobTools(deps: ToolDeps): Tool[] {
  const admin = deps.node.admin;
  return [
    defineTool({
      name: "install_application",
      title: "Install application",
      description:
        "Installs an app from a public .mpk/.wasm URL, a registry package@version or a file on the node's machine (may take minutes).",
      group: "blobs",
      input: z.object({
        coords: z.string().optional().describe("package@version (needs CALIMERO_REGISTRY_URL)."),
        url: z.string().optional().describe("Public http(s) .mpk or .wasm URL."),
        path: z.string().optional().describe(
          ".mpk or .wasm file on the node's own machine (admin token).",
        ),
        name: z.string().max(120).optional().describe("Name (.wasm)."),
        package: z.string().max(120).optional().describe("Package (.wasm path)."),
        version: z.string().max(60).optional().describe("Version (.wasm path)."),
      }),
      output: output({ applicationId: "string", name: "string", note: "string" }, [
        "applicationId",
      ]),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
      run: async ({ coords, url, path, name, package: pkg, version }, ctx) => {
        if ([coords, url, path].filter((v) => v !== undefined).length !== 1) {
          throw new Error(
            `Pass exactly one of coords (${COORDS_FORM}), url (a public .mpk or .wasm URL) or path (a file on the node's machine).`,
          );
        }
        const o = callOptions(ctx, INSTALL_TIMEOUT_MS);
        let installing: Promise<{ applicationId: string }>;
        const wasm = rawWasm(path ?? url ?? null, name ?? null);
        if (path !== undefined) {
          const named = wasm === null ? {} : {
            metadata: wasm.metadata,
            package: pkg ?? wasm.package,
            version: version ?? "0.0.0",
          };
          installing = admin.installDevApplication({ path: checkInstallPath(path), ...named }, o)
            .catch((error) => {
              throw pathInstallError(error, path);
            });
        } else {
          const request = coords !== undefined
            ? await registryInstall(deps.config.registryUrl, coords, {
              signal: ctx.signal,
              timeoutMs: deps.config.nodeTimeoutMs,
            })
            : { url: url! };
          checkInstallUrl(request.url, coords !== undefined, deps.config.allowLocalInstallUrls);
          const named = wasm === null || coords !== undefined ? {} : { metadata: wasm.metadata };
          installing = admin.installApplication({ ...request, ...named }, o).catch((error) => {
            throw urlInstallError(error, request.url);
          });
        }
        const installed = await whileWaiting(ctx, "Installing", installing);
        await refreshCatalog(deps, "install");
        if (wasm === null) return jsonResult({ applicationId: installed.applicationId });
        return jsonResult({
          applicationId: installed.applicationId,
          name: wasm.name,
          note: path !== undefined
            ? `A raw .wasm: recorded as package ${pkg ?? wasm.package} version ${
              version ?? "0.0.0"
            } with no signer, named "${wasm.name}" by its metadata.`
            : `A raw .wasm from a URL: the node records it as package "unknown" version 0.0.0 with no signer whatever is asked (core ignores package and version for URL installs), so mero-mcp knows it as "${wasm.name}" (its metadata name) and by its id. The same file from another URL is another app. Bundle it as a .mpk to give it a package and version.`,
        });
      },
    }),
    defineTool({
      name: "uninstall_application",
      title: "Uninstall application",
      description: "Uninstalls an application; its contexts remain.",
      group: "blobs",
      input: z.object({ application: applicationParam }),
      annotations: DESTRUCTIVE,
      run: async ({ application }, ctx) => {
        const app = await deps.apps.resolve(application);
        return await confirmed(
          ctx,
          `Uninstall ${
            appName(app)
          } (application ${app.id}) from this node? Its contexts remain, but cannot run it until it is installed again.`,
          { application: app.id },
          async () => {
            const answer = await admin.uninstallApplication(app.id, callOptions(ctx));
            await refreshCatalog(deps, "uninstall");
            return textResult(answer ?? `Application ${app.id} was uninstalled.`);
          },
        );
      },
    }),
    defineTool({
      name: "upload_blob",
      title: "Upload blob",
      description: "Stores up to 10 MiB of bytes in the node's blob store.",
      group: "blobs",
      input: z.object({
        data: z.string().describe("The bytes, base64."),
        hash: nonEmpty("sha256 of the bytes, base58 (not a blob id).").optional(),
        context: contextParam.optional(),
      }),
      output: output({ blobId: "string", size: "integer", hash: "string" }, ["blobId"]),
      annotations: WRITE,
      run: async ({ data, hash, context }, ctx) => {
        const bytes = decodeBase64(data);
        const content = await contentHash(bytes);
        if (hash !== undefined && hash !== content) {
          throw new Error(await hashProblem(hash, bytes, content));
        }
        const o = callOptions(ctx);
        const contextId = context === undefined ? undefined : await contextArg(deps, context, o);
        const blob = await whileWaiting(
          ctx,
          "Uploading",
          admin.uploadBlob(bytes, { hash, contextId }, o),
        );
        return jsonResult({ blobId: blob.blobId, size: blob.size, hash: content });
      },
    }),
    defineTool({
      name: "list_blobs",
      title: "List blobs",
      description: "Lists the node's blobs with their sizes.",
      group: "blobs",
      input: z.object({ ...pageInput }),
      output: listOutput("blobs"),
      annotations: READ_ONLY,
      large: true,
      run: async (args, ctx) => {
        const { items, more } = fromOffset((await admin.listBlobs(callOptions(ctx))).blobs, args);
        return jsonResult(listPage("blobs", items, args, deps.config, more));
      },
    }),
    defineTool({
      name: "delete_blob",
      title: "Delete blob",
      description: "Deletes a blob (refused while an installed app uses it).",
      group: "blobs",
      input: z.object({ blob: nonEmpty("Blob id (base58).") }),
      output: output({ blobId: "string", deleted: "boolean" }, ["blobId"]),
      annotations: DESTRUCTIVE,
      run: async ({ blob }, ctx) =>
        await confirmed(
          ctx,
          `Delete blob ${blob} from this node? This cannot be undone.`,
          { blob },
          async () => jsonResult(await admin.deleteBlob(blob, callOptions(ctx))),
        ),
    }),
  ];
}

/**
 * Why an upload's `hash` is refused before anything is sent: the node checks it against the content's sha256, and
 * a mismatch there is a bare 500 after the whole upload. A blob id (a hash of chunk hashes) is the usual mistake.
 */
async function hashProblem(given: string, bytes: Uint8Array, content: string): Promise<string> {
  const mistake = given === await blobIdOf(bytes)
    ? "That is these bytes' blob id, a hash of their chunk hashes; the node checks the content hash instead"
    : "It does not match these bytes: the node checks it against their sha256";
  return `hash ${
    oneLine(given, 80)
  } was not sent. ${mistake} (${content}). Pass that, or leave hash out.`;
}

/**
 * For a raw `.wasm` (not a bundle, not from the registry), what names it: a display name in its metadata (given,
 * else the file's stem) and, for a path install, a package (given, else `wasm.<stem>`) — without them core records
 * package "unknown" 0.0.0, and every such app would share that name (install.rs:301-303, :422-424).
 */
function rawWasm(
  location: string | null,
  name: string | null,
): { name: string; package: string; metadata: number[] } | null {
  if (location === null) return null;
  const file = location.replace(/[?#].*$/, "").split(/[\\/]/).pop() ?? "";
  if (!/\.wasm$/i.test(file)) return null;
  const stem = file.replace(/\.wasm$/i, "").replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 60) || "app";
  const display = name?.trim() || stem;
  return {
    name: display,
    package: `wasm.${stem}`,
    metadata: Array.from(new TextEncoder().encode(JSON.stringify({ name: display }))),
  };
}

/** Refuses, before any request, a URL the node would not download from (see install_url.ts). */
function checkInstallUrl(url: string, fromRegistry: boolean, allowLocal: boolean): void {
  const problem = installUrlProblem(url, allowLocal);
  if (problem === null) return;
  const what = fromRegistry ? `the registry's artifact ${redactUrl(url)}` : redactUrl(url);
  const next = /non-public address/.test(problem)
    ? " (nodes since 0.11.0-rc.10 refuse it). Serve the file from a public http(s) address, or pass path " +
      "with a file on the node's machine. For an older node that allows it, set CALIMERO_MCP_ALLOW_LOCAL_URLS=1."
    : ". Pass an http(s) URL of a .mpk or .wasm file, or path with a file on the node's machine.";
  throw new Error(`The node will not install from ${what}: ${problem}${next}`);
}

/** A path the node accepts for a dev install: core refuses any `..` component (validate_safe_path). */
function checkInstallPath(path: string): string {
  if (path.trim() === "") {
    throw new Error("path is empty; pass the file's path on the node's machine.");
  }
  if (path.split(/[\\/]/).includes("..")) {
    throw new Error(
      `path "${path}" contains "..", which the node refuses; pass the file's full path instead.`,
    );
  }
  return path;
}

/** The node's refusals of a path install, in words (core install_dev_application.rs, auth validator). */
function pathInstallError(error: unknown, path: string): unknown {
  if (!(error instanceof NodeHttpError)) return error;
  if (error.status === 403 && error.authError === "permission_denied") {
    return new Error(
      "Installing from a path needs an admin token: the node allows install-dev-application to admin keys only. " +
        "Use url or coords, or a token with admin rights.",
    );
  }
  if (error.status === 403 && /install path/.test(error.body)) {
    return new Error(
      `The node does not allow installing "${path}": its MEROD_DEV_INSTALL_ROOT confines path installs to one ` +
        "directory, and this file is outside it or does not exist. Put the file there, or use url.",
    );
  }
  if (error.status === 500) {
    return new Error(
      `The node could not install "${path}": ${
        error.body.trim() || "no reason given"
      }. The path is read on ` +
        "the node's machine, not this one.",
    );
  }
  return error;
}

/** The node's refusal of an install URL, in words (a 400 from core's validate_url). */
function urlInstallError(error: unknown, url: string): unknown {
  if (!(error instanceof NodeHttpError) || error.status !== 400) return error;
  const reason = /Field 'url' has invalid format: (.*)$/.exec(readErrorField(error.body))?.[1];
  if (reason === undefined) return error;
  return new Error(
    `The node will not install from ${
      redactUrl(url)
    }: ${reason}. Serve the file from a public http(s) ` +
      "address, or pass path with a file on the node's machine.",
  );
}

/** The `error` text of a JSON error body, else the body as it is. */
function readErrorField(body: string): string {
  try {
    const parsed = JSON.parse(body);
    return typeof parsed?.error === "string" ? parsed.error : body;
  } catch {
    return body;
  }
}

/** Refreshes the catalog after an install or uninstall; a failure is logged, never returned. */
async function refreshCatalog(deps: ToolDeps, after: string): Promise<void> {
  try {
    await deps.apps.refresh();
  } catch (error) {
    log.warn(`catalog refresh after ${after} failed: ${describeError(error)}`);
  }
}

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

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes standard or URL-safe base64 (whitespace ignored). The decoded size is computed from the text
 * first, so more than {@link MAX_BLOB_BYTES} is refused before anything is decoded or uploaded.
 */
export function decodeBase64(data: string): Uint8Array {
  const text = data.replace(/\s+/g, "").replace(/-/g, "+").replace(/_/g, "/");
  if (!BASE64.test(text) || text.replace(/=+$/, "").length % 4 === 1) {
    throw new Error("data is not valid base64; pass the bytes base64-encoded.");
  }
  const unpadded = text.replace(/=+$/, "");
  const size = Math.floor(unpadded.length * 3 / 4);
  if (size > MAX_BLOB_BYTES) {
    throw new Error(
      `The blob is ${size} bytes; upload_blob takes at most ${MAX_BLOB_BYTES} bytes (10 MiB). Nothing was uploaded.`,
    );
  }
  const padded = unpadded + "=".repeat((4 - unpadded.length % 4) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
