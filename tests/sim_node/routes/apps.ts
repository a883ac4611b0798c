// Health, identity and application routes, including the ABI route's service rules and the
// install endpoints (the sim maps an install URL onto a sample app; failures are plain-text 500s).

import { manifestOf, stripDocs } from "../abi.ts";
import { sampleForUrl } from "../apps/mod.ts";
import { unitFor } from "../execute.ts";
import { bare, data, json, jsonError, text } from "../http.ts";
import { network } from "../network.ts";
import { appRecord, installApp, listedRecord } from "../install.ts";
import { bodyObject, missingField, notAnObject, type Route, type RouteCtx } from "../router.ts";
import type { CustomApp } from "../types.ts";

const A = "/admin-api";

/**
 * `GET /applications/:id/abi[?service_name=]`, as core answers it (crates/server/src/admin/handlers/applications/
 * get_application_abi.rs): the service picked by resolve_service (the only one when there is one), and the
 * embedded manifest read with its schema version checked (crates/wasm-abi/src/embed.rs): another major is a 400,
 * an absent or malformed one another 400.
 */
function abiRoute({ node, params, url }: RouteCtx): Response {
  if (!node.abiRoute) return bare(404);
  const app = node.apps.get(params.app);
  if (!app) return jsonError(404, "Application not found");
  const names = app.hasServices ? app.units.map((u) => u.service!) : [];
  const requested = url.searchParams.get("service_name");
  const available = () => names.join(", ");
  if (requested !== null && names.length === 0) {
    return jsonError(400, "application has no named services; omit service_name");
  }
  if (requested === null && names.length > 1) {
    return jsonError(
      400,
      `application has multiple services; pass service_name (available: ${available()})`,
    );
  }
  if (requested !== null && !names.includes(requested)) {
    return jsonError(400, `service "${requested}" not found (available: ${available()})`);
  }
  const unit = unitFor(app, requested ?? names[0] ?? null);
  const manifest = unit ? manifestOf(unit.abiText) : null;
  const version = typeof manifest?.schema_version === "string" ? manifest.schema_version : null;
  // core's validator also wants canonical order, methods and events sorted by name (crates/wasm-abi/src/
  // validate.rs): an unsorted manifest is "malformed" to it, however usable (embed.rs).
  const sorted = (list: unknown) =>
    !Array.isArray(list) ||
    list.every((item, i) => i === 0 || String(list[i - 1]?.name) <= String(item?.name));
  const canonical = manifest !== null && sorted(manifest.methods) &&
    sorted((manifest as { events?: unknown }).events);
  if (
    !manifest || version === null || !/^wasm-abi\/\d+(\.\d+)?$/.test(version) ||
    (/^wasm-abi\/1(\.\d+)?$/.test(version) && !canonical)
  ) {
    return jsonError(
      400,
      "application has no usable embedded ABI (absent or malformed); rebuild it with `cargo mero build`",
    );
  }
  if (!/^wasm-abi\/1(\.\d+)?$/.test(version)) {
    return jsonError(400, `unsupported ABI schema version ${version}`);
  }
  return data(node.keepAbiDocs ? manifest : stripDocs(manifest));
}

/**
 * Builds the app definition for an install URL or path; null when the sim cannot "download" it. A `.mpk` is a
 * bundle with its manifest's package and version; a `.wasm` is a raw install, recorded as package `unknown`,
 * version `0.0.0`, no signer — a path install takes `package`/`version` from the request, a URL install ignores
 * them (core install.rs, :422-424; admin/handlers/applications/install_application.rs).
 */
export function specForUrl(
  url: string,
  metadata: unknown,
  named: { package?: unknown; version?: unknown } | null = null,
): CustomApp | null {
  const found = sampleForUrl(url);
  if (!found) return null;
  const spec = found.app.build({ version: found.version });
  spec.source = url;
  spec.bundle = /\.mpk$/.test(url.split(/[?#]/)[0]);
  if (!spec.bundle) {
    spec.raw = {
      package: typeof named?.package === "string" ? named.package : "unknown",
      version: typeof named?.version === "string" ? named.version : "0.0.0",
    };
    // The installer's metadata bytes are the record's metadata, empty when none were sent.
    spec.metadata = Array.isArray(metadata) ? metadata as number[] : [];
  } else if (Array.isArray(metadata) && metadata.length > 0) spec.metadata = metadata as number[];
  return spec;
}

/**
 * Why core's `InstallApplicationRequest::validate` refuses `url`, or null (crates/server/primitives/src/validation.rs,
 * validate_url / url_host_is_blocked; checks at crates/server/primitives/src/admin/mod.rs). Written apart from the
 * client's own check on purpose: this one follows core's code, so the two can disagree and a test shows it.
 */
function coreUrlRefusal(url: string): string | null {
  if (url.length > 2048) return `Field 'url' is too long (max 2048, got ${url.length})`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "Invalid JSON data: url: relative URL without a base";
  }
  const scheme = parsed.protocol.slice(0, -1);
  if (scheme !== "http" && scheme !== "https") {
    return `Field 'url' has invalid format: unsupported URL scheme '${scheme}'; only http and https are allowed`;
  }
  const host = parsed.hostname.toLowerCase().replace(/\.$/, "").replace(/^\[|\]$/g, "");
  const blocked = host === "localhost" || host.endsWith(".localhost") ||
    BLOCKED_V4.some((re) => re.test(host)) || BLOCKED_V6.some((re) => re.test(host));
  return blocked
    ? "Field 'url' has invalid format: URL host is a loopback, private, link-local, or otherwise non-public address"
    : null;
}

/** core's ipv4_is_blocked: 127/8, 10/8, 172.16/12, 192.168/16, 169.254/16, 100.64/10, 0.0.0.0, broadcast. */
const BLOCKED_V4 = [
  /^127\./,
  /^10\./,
  /^172\.(1[6-9]|2[0-9]|3[01])\./,
  /^192\.168\./,
  /^169\.254\./,
  /^100\.(6[4-9]|[7-9][0-9]|1[01][0-9]|12[0-7])\./,
  /^0\.0\.0\.0$/,
  /^255\.255\.255\.255$/,
];

/** core's ipv6_is_blocked on the URL parser's compressed form: ::1, ::, fc00::/7, fe80::/10, mapped v4. */
const BLOCKED_V6 = [
  /^::1?$/,
  /^f[cd][0-9a-f]{0,2}:/,
  /^fe[89ab][0-9a-f]?:/,
  /^::ffff:(7f[0-9a-f]{2}:|a[0-9a-f]{2}:|ac1[0-9a-f]:|c0a8:|a9fe:|64[4-7][0-9a-f]:|0:0$)/,
];

function install(field: "url" | "path") {
  return ({ node, body }: RouteCtx): Response => {
    const input = bodyObject(body);
    if (!input) return notAnObject();
    if (typeof input[field] !== "string") return missingField(field);
    if (!Array.isArray(input.metadata)) return missingField("metadata");
    const where = input[field] as string;
    if (field === "url" && node.installUrlChecks) {
      const refusal = coreUrlRefusal(where);
      if (refusal) return jsonError(400, refusal);
    }
    if (field === "path" && where.split("/").includes("..")) {
      // validate_safe_path (validation.rs): no `..` component.
      return jsonError(
        400,
        "Field 'path' has invalid format: path must not contain '..' traversal components",
      );
    }
    const spec = specForUrl(where, input.metadata, field === "path" ? input : null);
    if (!spec) {
      return text(
        500,
        `Failed to install application: cannot fetch "${where}": not found (the simulated node ` +
          `knows <sample>-<version>.mpk and <sample>.wasm)`,
      );
    }
    return data({ applicationId: installApp(node, spec).applicationId });
  };
}

/** The application, health and identity routes. */
export const appRoutes: Route[] = [
  {
    method: "GET",
    pattern: `${A}/health`,
    handler: ({ node }) =>
      node.health === "alive"
        ? data({ status: "alive" })
        : data({ status: "store_unavailable" }, 503),
  },
  {
    method: "GET",
    pattern: `${A}/ready`,
    // 200 only when started and the store answers; else 503 with the lifecycle label, or store_unavailable
    // (core crates/server/src/admin/service.rs `readiness_check_handler`).
    handler: ({ node }) => {
      if (node.health !== "alive") return data({ status: "store_unavailable" }, 503);
      return node.readiness === "ready"
        ? data({ status: "ready" })
        : data({ status: node.readiness }, 503);
    },
  },
  {
    method: "GET",
    pattern: `${A}/peers`,
    // `{count}` with no data envelope (core handlers/peers.rs, `GetPeersCountResponse`).
    handler: ({ node }) => json({ count: node.peers ?? Math.max(0, network.nodes.size - 1) }),
  },
  {
    method: "GET",
    pattern: `${A}/network/status`,
    // `NetworkStatusResponse` with no envelope (core handlers/network/status.rs); a simulated node has no
    // relays, rendezvous or hole punches, and AutoNAT has not probed.
    handler: ({ node }) =>
      json({
        localPeerId: `12D3KooW${node.identity.publicKey.slice(0, 44)}`,
        listenAddrs: ["/ip4/127.0.0.1/tcp/2528"],
        externalAddrs: [],
        relays: [],
        rendezvous: [],
        directUpgrades: [],
        autonat: {
          reachability: "unknown",
          lastTestAddr: null,
          lastTestResult: null,
          lastTestReason: null,
          lastTestObservedAddr: null,
          lastTestAt: null,
        },
      }),
  },
  {
    method: "GET",
    pattern: `${A}/usage`,
    // `{namespaces: [...]}`, one row per namespace this node is a member of, bytes approximate (core
    // handlers/usage.rs); here a context's state is counted as its JSON length.
    handler: ({ node }) => json({ namespaces: [...node.namespaces].map(usageOf) }),
  },
  {
    method: "GET",
    pattern: `${A}/identity`,
    handler: ({ node }) =>
      node.hasIdentity === true || (node.hasIdentity === "namespace" && takesPart(node))
        ? data(node.identity)
        : jsonError(
          404,
          "this node holds neither a device nor an account root yet; both are minted the first time it takes part in a namespace",
        ),
  },
  {
    method: "GET",
    pattern: `${A}/applications`,
    handler: ({ node }) => data({ apps: [...node.apps.values()].map(listedRecord) }),
  },
  {
    method: "GET",
    pattern: `${A}/applications/:app`,
    handler: ({ node, params }) => {
      const app = node.apps.get(params.app);
      return app ? data({ application: appRecord(app) }) : jsonError(404, "Application not found");
    },
  },
  { method: "GET", pattern: `${A}/applications/:app/abi`, handler: abiRoute },
  {
    method: "DELETE",
    pattern: `${A}/applications/:app`,
    handler: ({ node, params }) => {
      if (!node.apps.delete(params.app)) {
        return text(500, `Failed to uninstall application: ${params.app} is not installed`);
      }
      return data({ applicationId: params.app });
    },
  },
  {
    method: "POST",
    pattern: `${A}/install-application`,
    json: true,
    validated: true,
    handler: install("url"),
  },
  {
    method: "POST",
    pattern: `${A}/install-dev-application`,
    json: true,
    validated: true,
    handler: install("path"),
  },
];

/** One namespace's usage row (core `NamespaceUsage`), its state bytes the JSON length of its contexts' states. */
function usageOf(namespaceId: string): Record<string, unknown> {
  const groups = [...network.groups.values()].filter((g) =>
    g.namespaceId === namespaceId && !g.deleted
  );
  const ids = new Set(groups.map((g) => g.id));
  const contexts = [...network.contexts.values()].filter((c) => ids.has(c.groupId));
  const state = contexts.reduce((sum, c) => sum + JSON.stringify(c.box.state, plain).length, 0);
  return {
    namespaceId,
    contextCount: contexts.length,
    memberCount: network.groups.get(namespaceId)?.members.size ?? 0,
    subgroupCount: groups.filter((g) => g.parentId === namespaceId).length,
    bytes: { state, privateState: 0, delta: 0, governance: 0, total: state },
  };
}

/** Maps and sets as arrays and big integers as text, for a size. */
function plain(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return String(value);
  return value instanceof Map ? [...value] : value instanceof Set ? [...value] : value;
}

/** Whether the node takes part in any namespace (holds one, or is a member of a group). */
function takesPart(node: RouteCtx["node"]): boolean {
  if (node.namespaces.size > 0) return true;
  for (const group of network.groups.values()) {
    if (!group.deleted && group.members.has(node.identity.accountId)) return true;
  }
  return false;
}
