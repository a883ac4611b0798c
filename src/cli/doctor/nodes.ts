// doctor's "Nodes" section: each node the server names besides its own (CALIMERO_NODES, or several under the node
// home) — whether it answers, how the server would authenticate there, and what that credential may do. A named node
// that does not answer is a warning: the server still serves its own node.

import type { Config } from "../../config/config.ts";
import { namedNodeConfig, namedNodes } from "../../server/nodes.ts";
import { createSession } from "../../node/session.ts";
import { credentialPermissions, credentialSource } from "../../node/node.ts";
import { describeError } from "../../answer/errors.ts";
import { redactUrl } from "../../lib/redact.ts";
import type { DoctorLine, DoctorSection } from "./report.ts";

/** The section, or null when the server names no other node. */
export async function nodesSection(config: Config): Promise<DoctorSection | null> {
  const entries = namedNodes(config);
  if (entries.length === 0) return null;
  const lines = await Promise.all(entries.map(async (entry): Promise<DoctorLine> => {
    const session = createSession(namedNodeConfig(config, entry));
    const where = `${redactUrl(entry.url)} (${entry.source})`;
    try {
      await session.admin.listApplications();
    } catch (error) {
      const text = describeError(error);
      const signIn = /401|authentication|requires/i.test(text)
        ? ` Run mero-mcp login ${entry.name} to sign in there.`
        : "";
      return { status: "warn", label: entry.name, detail: `${where}: ${text}${signIn}` };
    }
    const conn = await session.connection();
    const source = credentialSource(conn.authMode);
    const permissions = source === null ? null : await credentialPermissions(conn);
    const scope = source === null
      ? "no credential needed"
      : `${source}, ${
        permissions === null
          ? "scope unknown"
          : permissions.includes("admin")
          ? "admin"
          : permissions.slice(0, 8).join(", ")
      }`;
    return { status: "ok", label: entry.name, detail: `${where}: answers; ${scope}` };
  }));
  return { title: "Nodes", lines };
}
