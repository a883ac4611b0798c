// Installing and uninstalling apps: from a public URL, a registry's package@version, or a path on the node's machine.
// What a node would refuse is said before it is sent; the catalog is refreshed before the answer, so the new
// tools exist when it arrives.

import { z } from "zod";
import {
  callOptions,
  confirmed,
  defineTool,
  DESTRUCTIVE,
  output,
  type Tool,
  whileWaiting,
} from "../tool.ts";
import { describeError, redactUrl } from "../../answer/errors.ts";
import { jsonResult, textResult } from "../../answer/result.ts";
import { appName } from "../../apps/resolve.ts";
import { INSTALL_TIMEOUT_MS, NodeHttpError } from "../../mero/mod.ts";
import { installUrlProblem } from "../install_url.ts";
import { log } from "../../lib/log.ts";
import type { ToolDeps } from "../deps.ts";
import { applicationParam } from "../params.ts";
import { registryInstall } from "./bundle_registry.ts";
import { COORDS_FORM } from "./bundle_registry.ts";

/**
 * `install_application` installs an app from a public .mpk/.wasm URL, a registry package@version or a file on the node's machine (may take minutes).
 */
export function installApplication(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
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
    run: async ({ coords, url, path, name, package: pkg, version }, call) => {
      if ([coords, url, path].filter((v) => v !== undefined).length !== 1) {
        throw new Error(
          `Pass exactly one of coords (${COORDS_FORM}), url (a public .mpk or .wasm URL) or path (a file on the node's machine).`,
        );
      }
      const o = callOptions(call, INSTALL_TIMEOUT_MS);
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
            signal: call.signal,
            timeoutMs: deps.config.nodeTimeoutMs,
          })
          : { url: url! };
        checkInstallUrl(request.url, coords !== undefined, deps.config.allowLocalInstallUrls);
        const named = wasm === null || coords !== undefined ? {} : { metadata: wasm.metadata };
        installing = admin.installApplication({ ...request, ...named }, o).catch((error) => {
          throw urlInstallError(error, request.url);
        });
      }
      const installed = await whileWaiting(call, "Installing", installing);
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
  });
}

/** `uninstall_application` uninstalls an application; its contexts remain. */
export function uninstallApplication(deps: ToolDeps): Tool {
  const admin = deps.node.admin;
  return defineTool({
    name: "uninstall_application",
    title: "Uninstall application",
    description: "Uninstalls an application; its contexts remain.",
    group: "blobs",
    input: z.object({ application: applicationParam }),
    annotations: DESTRUCTIVE,
    run: async ({ application }, call) => {
      const app = await deps.apps.resolve(application);
      return await confirmed(
        call,
        `Uninstall ${
          appName(app)
        } (application ${app.id}) from this node? Its contexts remain, but cannot run it until it is installed again.`,
        { application: app.id },
        async () => {
          const answer = await admin.uninstallApplication(app.id, callOptions(call));
          await refreshCatalog(deps, "uninstall");
          return textResult(answer ?? `Application ${app.id} was uninstalled.`);
        },
      );
    },
  });
}

/**
 * For a raw `.wasm` (not a bundle, not from the registry), what names it: a display name in its metadata (given,
 * else the file's stem) and, for a path install, a package (given, else `wasm.<stem>`) — without them core records
 * package "unknown" 0.0.0, and every such app would share that name (install.rs, :422-424).
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
