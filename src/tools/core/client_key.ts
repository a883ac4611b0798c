// create_client_key: least privilege. With the admin credential, mint a client key scoped to what an agent needs
// (core's `POST /admin/client-key`), so a person can run mero-mcp — or any client — with less than admin. The key's
// tokens are secrets: they are written to a file only the person can read, never into the result or a log.

import { contextArg } from "../context_arg.ts";
import { dirname, join } from "path";
import { z } from "zod";
import { writeAll } from "../../lib/fs.ts";
import { jsonResult } from "../../answer/result.ts";
import type { ToolDeps } from "../deps.ts";
import { contextParam, nonEmpty } from "../params.ts";
import { TOOLSET_PERMISSIONS } from "../permissions.ts";
import { ownIdentity } from "../membership.ts";
import { callOptions, confirmed, defineTool, output, type Tool, WRITE } from "../tool.ts";

/** The folder in the state directory the keys' token files go to (owner-only). */
export const CLIENT_KEYS_DIR = "client-keys";

const TOOLSETS = Object.keys(TOOLSET_PERMISSIONS) as [string, ...string[]];

/** create_client_key. */
export function clientKeyTool(deps: ToolDeps): Tool {
  return defineTool({
    name: "create_client_key",
    title: "Create client key",
    description:
      "Mints a client key with only the permissions some toolsets need; its tokens go to a file the person reads.",
    group: "core",
    input: z.object({
      toolsets: z.array(z.enum(TOOLSETS)).optional().describe("Grant what these need."),
      permissions: z.array(nonEmpty("A permission, e.g. blob:get.")).max(32).optional()
        .describe("Core permission names, beside the toolsets'."),
      context: contextParam.optional().describe("Bind the key to a context."),
    }),
    output: output({ file: "string", permissions: "array", next: "string" }, ["file"]),
    asks: "always",
    annotations: WRITE,
    run: async ({ toolsets, permissions, context }, ctx) => {
      const o = callOptions(ctx);
      const admin = deps.node.admin;
      const granted = [
        ...new Set([
          ...(toolsets ?? []).flatMap((t) => TOOLSET_PERMISSIONS[t]),
          ...permissions ?? [],
        ]),
      ];
      if (granted.length === 0 && context === undefined) {
        throw new Error(
          "Pass toolsets, permissions or a context: a key with nothing granted does nothing.",
        );
      }
      if (granted.includes("admin")) {
        throw new Error(
          "A client key with admin is no less than the admin credential: leave admin out.",
        );
      }
      let bound: { contextId: string; contextIdentity: string } | null = null;
      if (context !== undefined) {
        const id = await contextArg(deps, context, o);
        const identity = await ownIdentity(admin, id, o);
        if (identity === null) {
          throw new Error(
            `This node has no identity in context ${id} to bind the key to: join it first.`,
          );
        }
        bound = { contextId: id, contextIdentity: identity };
      }
      const file = join(
        deps.config.stateDir,
        CLIENT_KEYS_DIR,
        `${new Date().toISOString().replace(/[:.]/g, "-")}-${
          crypto.getRandomValues(new Uint8Array(4)).toHex()
        }.json`,
      );
      const scope = [
        ...(bound ? [`context[${bound.contextId},${bound.contextIdentity}]`] : []),
        ...granted,
      ];
      // A credential is a person's decision: asked where the client can ask.
      return await confirmed(
        ctx,
        `Create a client key for this node with ${
          scope.join(", ")
        }, and write its tokens to ${file} (readable only by you)?`,
        { scope },
        async () => {
          // The file exists, owner-only and inside the state directory, before the key does: a key whose tokens
          // cannot be kept is never minted.
          const secret = await openSecret(deps.config.stateDir, file);
          let pair;
          try {
            pair = await admin.createClientKey(
              {
                permissions: granted,
                ...(bound
                  ? { contextId: bound.contextId, contextIdentity: bound.contextIdentity }
                  : {}),
              },
              o,
            );
          } catch (error) {
            secret.close();
            await Deno.remove(file).catch(() => {});
            throw error;
          }
          try {
            await writeAll(
              secret,
              new TextEncoder().encode(`${
                JSON.stringify(
                  {
                    node: (await deps.node.connection()).url,
                    permissions: scope,
                    access_token: pair.access_token,
                    refresh_token: pair.refresh_token,
                  },
                  null,
                  2,
                )
              }\n`),
            );
          } catch (error) {
            throw new Error(
              `A client key was minted on the node, but its tokens could not be written to ${file} (${
                (error as Error).message
              }), so nobody holds it. Revoke it in the node's admin dashboard (keys, then clients) or let it expire; then free space in the state directory and try again.`,
            );
          } finally {
            secret.close();
          }
          return jsonResult({
            file,
            permissions: scope,
            next:
              "The tokens are in the file, not here. To run an agent with this key, set CALIMERO_AUTH_TOKEN to its access_token and CALIMERO_REFRESH_TOKEN to its refresh_token in that client's mero-mcp configuration; doctor then shows the key's scope.",
          });
        },
      );
    },
  });
}

/**
 * Creates the empty file a key's tokens go to: in `client-keys`, a real folder (not a link) only the owner may enter
 * (tightened when an older version or a person left it open), as a new file only the owner may read, whose real path
 * is inside the state directory (a folder swapped for a link after the check is caught here, before any secret is
 * written). Throws saying what is wrong.
 */
async function openSecret(stateDir: string, path: string): Promise<Deno.FsFile> {
  const dir = dirname(path);
  const info = await Deno.lstat(dir).catch((error) => {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  });
  if (info === null) await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  else if (info.isSymlink || !info.isDirectory) {
    throw new Error(
      `${dir} is ${
        info.isSymlink ? "a link" : "not a folder"
      }: a key's tokens are written only to a real folder in the state directory. Remove it and try again.`,
    );
  } else if (Deno.build.os !== "windows" && info.mode !== null && (info.mode & 0o077) !== 0) {
    await Deno.chmod(dir, 0o700);
  }
  const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  try {
    const [real, root] = await Promise.all([Deno.realPath(path), Deno.realPath(stateDir)]);
    if (!real.startsWith(`${root}${SEP}`)) {
      throw new Error(
        `${dir} leads out of the state directory: the key was not minted. Remove it and try again.`,
      );
    }
  } catch (error) {
    file.close();
    await Deno.remove(path).catch(() => {});
    throw error;
  }
  return file;
}

const SEP = Deno.build.os === "windows" ? "\\" : "/";
