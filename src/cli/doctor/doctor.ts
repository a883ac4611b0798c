// `mero-mcp doctor`: walks the server's own code path — discovery, the runtime (session, handle
// key, ABI loader, catalog, generated tools) — and reports each step as data. It never holds a secret in the report.

import { join } from "path";
import { nodesSection } from "./nodes.ts";
import denoJson from "../../../deno.json" with { type: "json" };
import type { Config } from "../../config/config.ts";
import { describeRungs, readHandoff, type RungReport, safeOrigin } from "../../node/discovery.ts";
import { describeError, isAuthError, redactUrl } from "../../answer/errors.ts";
import { NodeHttpError } from "../../mero/mod.ts";
import { missingFor } from "../../tools/permissions.ts";
import { healthProblem, notANode } from "../../node/health.ts";
import { escapeControls } from "../../lib/text.ts";
import {
  credentialPermissions,
  credentialSource,
  hasConfiguredSecrets,
  sameNode,
} from "../../node/node.ts";
import { createRuntime, type Runtime } from "../../server/runtime.ts";
import { createSession, type Session, type SessionInfo } from "../../node/session.ts";
import { appsSection, type CatalogFacts, marksLines, toolsSection } from "./apps.ts";
import { stateDirSection } from "./state.ts";
import type { DoctorLine, DoctorReport, DoctorSection } from "./report.ts";

import { exists } from "../../lib/fs.ts";

/** The outcome of one node request, classified the way the report needs it. */
type Answer<T> =
  | { kind: "ok"; value: T }
  | { kind: "unreachable" | "auth" | "http" | "other"; error: unknown };

/** Runs every check and returns the report (nothing printed). */
export async function runDoctor(config: Config): Promise<DoctorReport> {
  const sections: DoctorSection[] = [];
  const rungs = await describeRungs(config);
  const handoffPresent = await exists(join(config.stateDir, "agent.json"));
  sections.push({ title: "Discovery", lines: discoveryLines(rungs, handoffPresent) });

  let runtime: Runtime | null = null;
  let startError: unknown = null;
  try {
    runtime = await createRuntime(config);
  } catch (error) {
    startError = error;
  }
  try {
    const session = runtime?.session ?? createSession(config);
    const node = await nodeChecks(session, sections[0].lines.some((l) => l.status === "fail"));
    sections.push({ title: "Node", lines: node.lines });
    sections.push({
      title: "Auth",
      lines: [...await authLines(config, node), ...await scopeLines(config, session, node)],
    });
    sections.push(await stateDirSection(config.stateDir, startError));
    const facts: CatalogFacts | null = runtime !== null && node.listed
      ? { state: await runtime.catalog.refresh(), snapshot: runtime.surface.current(), config }
      : null;
    const apps = appsSection(facts, node.skipped);
    if (runtime !== null && facts !== null && facts.state.loaded) {
      apps.lines.push(...marksLines(facts.state, runtime.marks));
    }
    sections.push(apps);
    sections.push(toolsSection(facts, runtime?.surface.current() ?? null, config, node.skipped));
    const nodes = await nodesSection(config);
    if (nodes !== null) sections.push(nodes);
  } finally {
    runtime?.catalog.stop();
  }
  const failures = sections.flatMap((s) =>
    s.lines.filter((l) => l.status === "fail").map((l) => `${s.title}: ${l.detail}`)
  );
  return { version: denoJson.version, works: failures.length === 0, sections, failures };
}

/** Every secret the configuration and the handoff file hold, for the last-line scrub of the printed report. */
export async function doctorSecrets(config: Config): Promise<string[]> {
  const handoff = await readHandoff(config.stateDir);
  const all = [config.password, config.authToken, config.refreshToken];
  if (handoff !== null) all.push(handoff.accessToken, handoff.refreshToken);
  return all.filter((s): s is string => typeof s === "string" && s !== "");
}

const RUNG_WHAT: Record<RungReport["source"], string> = {
  env: "CALIMERO_NODE_URL",
  handoff: "agent.json",
  named: "CALIMERO_NODE_NAME",
  "config-scan": "node home",
  probe: "local ports",
};

function discoveryLines(rungs: RungReport[], handoffPresent: boolean): DoctorLine[] {
  const decisive = rungs.findIndex((r) => r.outcome.kind !== "skip");
  const lines = rungs.map((rung, i): DoctorLine => {
    const label = `${rung.source} (${RUNG_WHAT[rung.source]})`;
    const outcome = rung.outcome;
    if (outcome.kind === "skip") {
      const ignored = rung.source === "handoff" && handoffPresent
        ? '; agent.json is there but was ignored (not JSON, no "accessToken", or a nodeUrl ' +
          'that is not loopback): run "mero-mcp doctor --log debug" for the reason'
        : "";
      return { status: "skip", label, detail: outcome.reason + ignored };
    }
    const after = decisive !== -1 && i > decisive;
    if (outcome.kind === "error") {
      return after
        ? { status: "info", label, detail: `not reached: ${outcome.message}` }
        : { status: "fail", label, detail: outcome.message };
    }
    const where = redactUrl(outcome.node.url) +
      (outcome.node.nodeName ? ` (node "${outcome.node.nodeName}")` : "");
    if (rung.chosen) return { status: "ok", label, detail: `${where}: this is the node used` };
    return { status: "info", label, detail: `${where}: also matches, but an earlier rung wins` };
  });
  return lines;
}

/** What the node checks learnt, for the auth and app sections. */
interface NodeFacts {
  lines: DoctorLine[];
  info: SessionInfo | null;
  /** The answer to the authenticated request (`GET /admin-api/applications`), or null if never asked. */
  auth: Answer<unknown> | null;
  /** True when the node listed its applications (so the catalog can be built). */
  listed: boolean;
  /** Why the apps were not listed, for the sections that depend on them. */
  skipped: string | null;
}

async function nodeChecks(session: Session, discoveryFailed: boolean): Promise<NodeFacts> {
  const lines: DoctorLine[] = [];
  let info: SessionInfo;
  try {
    info = await session.connect();
  } catch (error) {
    // A rung that stopped discovery already failed above; otherwise this is the "no node found" message.
    const line: DoctorLine = discoveryFailed
      ? { status: "skip", label: "address", detail: "not checked: discovery failed" }
      : { status: "fail", label: "address", detail: describeError(error) };
    return { lines: [line], info: null, auth: null, listed: false, skipped: "no node was found" };
  }
  const name = info.nodeName ? `, node "${info.nodeName}"` : "";
  lines.push({
    status: "info",
    label: "address",
    detail: `${redactUrl(info.url ?? "")} (found by ${info.discoverySource}${name})`,
  });
  // One request at a time: with wrong credentials, each would otherwise log in and fail again.
  const health = await ask(() => session.admin.health());
  if (health.kind === "unreachable" || health.kind === "other") {
    lines.push({ status: "fail", label: "health", detail: describeError(health.error) });
    return { lines, info, auth: null, listed: false, skipped: "the node did not answer" };
  }
  const foreign = health.kind === "http" ? notANode(health.error) : null;
  if (foreign !== null) {
    lines.push({ status: "fail", label: "health", detail: foreign });
    return {
      lines,
      info,
      auth: null,
      listed: false,
      skipped: "the address does not hold a Calimero node",
    };
  }
  if (health.kind === "auth") {
    lines.push({ status: "skip", label: "health", detail: "not checked: authentication failed" });
    return { lines, info, auth: health, listed: false, skipped: "authentication failed" };
  }
  lines.push(
    health.kind === "ok"
      ? { status: "ok", label: "health", detail: String(health.value?.status ?? "alive") }
      : { status: "fail", label: "health", detail: healthProblem(health.error) },
  );
  const ready = await ask(() => session.admin.ready());
  lines.push(readyLine(ready));
  const auth = await ask(() => session.admin.listApplications());
  const identity = auth.kind === "auth" ? null : await ask(() => session.admin.identity());
  if (identity !== null) lines.push(identityLine(identity));
  if (auth.kind !== "auth") lines.push(peersLine(await ask(() => session.admin.peers())));
  const listed = auth.kind === "ok";
  const skipped = listed
    ? null
    : auth.kind === "auth"
    ? "authentication failed"
    : "the node did not list its applications";
  return { lines, info, auth, listed, skipped };
}

/** Whether the node has finished starting (core's readiness probe): a starting node serves no sync. */
function readyLine(answer: Answer<string>): DoctorLine {
  if (answer.kind === "ok") {
    return answer.value === "ready" ? { status: "ok", label: "readiness", detail: "ready" } : {
      status: "warn",
      label: "readiness",
      detail: `${answer.value}: the node serves no sync or calls until it is ready`,
    };
  }
  return {
    status: "skip",
    label: "readiness",
    detail: `not known: ${describeError(answer.error)}`,
  };
}

/** How many peers the node has: none means no context can sync with another member's node. */
function peersLine(answer: Answer<number>): DoctorLine {
  if (answer.kind !== "ok") {
    return { status: "skip", label: "peers", detail: `not known: ${describeError(answer.error)}` };
  }
  return answer.value === 0
    ? {
      status: "warn",
      label: "peers",
      detail: "0: contexts cannot sync with other members until another member's node is reachable",
    }
    : { status: "ok", label: "peers", detail: String(answer.value) };
}

function identityLine(answer: Answer<Record<string, unknown>>): DoctorLine {
  if (answer.kind === "ok") {
    const id = answer.value;
    const parts = [
      typeof id.accountId === "string" ? `account ${id.accountId}` : null,
      typeof id.publicKey === "string" ? `public key ${id.publicKey}` : null,
    ].filter((p) => p !== null);
    return { status: "ok", label: "identity", detail: parts.join(", ") || "present" };
  }
  if (answer.error instanceof NodeHttpError && answer.error.status === 404) {
    // A fresh node: core mints its device and account the first time it takes part in a namespace.
    return {
      status: "info",
      label: "identity",
      detail:
        "none yet: the node gets its account the first time it takes part in a namespace (create_namespace or join_namespace)",
    };
  }
  return { status: "warn", label: "identity", detail: describeError(answer.error) };
}

async function authLines(config: Config, node: NodeFacts): Promise<DoctorLine[]> {
  if (node.info === null) {
    return [{ status: "skip", label: "mode", detail: "not checked: no node was found" }];
  }
  const lines: DoctorLine[] = [{
    status: "info",
    label: "mode",
    detail: modeText(config, node.info.authMode),
  }];
  const handoff = await readHandoff(config.stateDir);
  if (handoff !== null && node.info.url !== null && !sameNode(handoff.nodeUrl, node.info.url)) {
    lines.push({
      status: "info",
      label: "agent.json",
      detail: `names another node (${
        safeOrigin(handoff.nodeUrl)
      }): its token is not sent to this one`,
    });
  } else if (handoff !== null && node.info.authMode !== "handoff") {
    lines.push({
      status: "info",
      label: "agent.json",
      detail: `names this node too, but the configured ${
        credentialSource(node.info.authMode ?? "none")
      } wins: the desktop app's token is not used (unset it to use agent.json)`,
    });
  }
  const answer = node.auth;
  if (answer === null) {
    lines.push({ status: "skip", label: "works", detail: "not checked: the node did not answer" });
  } else if (
    answer.kind === "auth" && node.info.discoverySource === "probe" && hasConfiguredSecrets(config)
  ) {
    // The credentials are set; they are withheld from a port found by probing. The one thing to do is name it.
    lines.push({
      status: "fail",
      label: "works",
      detail:
        `the node at ${node.info.url} needs authentication, and the configured credentials are not sent to a port found by probing: set CALIMERO_NODE_URL=${node.info.url} to send them there`,
    });
  } else if (answer.kind === "auth") {
    lines.push({ status: "fail", label: "works", detail: describeError(answer.error) });
  } else if (answer.kind === "unreachable" || answer.kind === "other") {
    lines.push({ status: "fail", label: "works", detail: describeError(answer.error) });
  } else if (answer.kind === "http") {
    lines.push({
      status: "fail",
      label: "works",
      detail: `the node failed to list its applications: ${describeError(answer.error)}`,
    });
  } else {
    lines.push({
      status: "ok",
      label: "works",
      detail: node.info.authMode === "none"
        ? "the node asks for no authentication (proxy mode)"
        : "the node accepted the token (GET /admin-api/applications)",
    });
  }
  return lines;
}

/**
 * What the credential in use may do, read from its token's `permissions` (core's auth): `admin` may do everything,
 * on every context; an agent is better given a client key scoped to what it needs.
 */
async function scopeLines(
  config: Config,
  session: Session,
  node: NodeFacts,
): Promise<DoctorLine[]> {
  if (node.info === null || node.auth?.kind !== "ok") return [];
  if (node.info.authMode === "none") {
    return [{
      status: "info",
      label: "scope",
      detail: "no token: the node lets whoever reaches it do everything (proxy mode)",
    }];
  }
  const permissions = await credentialPermissions(await session.connection());
  if (permissions === null) {
    return [{
      status: "info",
      label: "scope",
      detail: "unknown: the token's permissions cannot be read",
    }];
  }
  if (permissions.includes("admin")) {
    return [{
      status: "warn",
      label: "scope",
      detail:
        'admin: this token may do everything on the node, in every context. Give an agent a client key scoped to what it needs (docs/security.md, "Least privilege").',
    }];
  }
  const scoped: DoctorLine = {
    status: "ok",
    label: "scope",
    detail: `scoped: ${
      permissions.slice(0, 8).map((p) => escapeControls(p).slice(0, 80)).join(", ")
    }${permissions.length > 8 ? `, … (${permissions.length} in all)` : ""}`,
  };
  // What each toolset in use needs that this key lacks: its tools answer 403 for those.
  const needs = [...new Set(["core", "apps", ...config.toolsets])].map((toolset): DoctorLine => {
    const missing = missingFor(toolset, permissions);
    return missing.length === 0 ? { status: "ok", label: `needs ${toolset}`, detail: "covered" } : {
      status: "warn",
      label: `needs ${toolset}`,
      detail: `missing ${missing.join(", ")}: its tools that need them are refused (403)`,
    };
  });
  return [
    scoped,
    ...needs,
    {
      status: "info",
      label: "needs admin",
      detail: "peers, network status and usage (node_status leaves them empty without it)",
    },
  ];
}

function modeText(config: Config, mode: SessionInfo["authMode"]): string {
  switch (mode) {
    case "handoff":
      return 'handoff: the token in agent.json, written by "connect AI agent" in the desktop app';
    case "token":
      return `token: CALIMERO_AUTH_TOKEN (${
        config.refreshToken ? "with" : "without"
      } CALIMERO_REFRESH_TOKEN)`;
    case "credentials":
      return `credentials: CALIMERO_USERNAME "${config.username}" with its password`;
    case "login":
      return "login: the tokens `mero-mcp login` stored for this node";
    default:
      return hasConfiguredSecrets(config)
        ? "none: a token or credentials are configured, but the node was found only by probing a local " +
          "port, so they are not sent to it (set CALIMERO_NODE_URL to the node's address to use them)"
        : "none: no token or credentials are configured (a node in proxy mode needs none)";
  }
}

async function ask<T>(request: () => Promise<T>): Promise<Answer<T>> {
  try {
    return { kind: "ok", value: await request() };
  } catch (error) {
    if (!(error instanceof NodeHttpError)) return { kind: "other", error };
    if (error.status === 0) return { kind: "unreachable", error };
    if (isAuthError(error) || error.status === 429) return { kind: "auth", error };
    return { kind: "http", error };
  }
}
