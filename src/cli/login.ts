// `mero-mcp login [node]`: a person signs in to a node they do not run themselves, in their browser, as core's own
// meroctl does (crates/meroctl/src/auth.rs): a loopback callback on a free port, a single-use state nonce carried in
// the callback URL, `/auth/login?callback-url=…&app-url=…&permissions=…` opened in the browser, and the tokens
// arriving on the callback (as query parameters, or in the fragment, which a small page sends on). Only the
// permissions the configured toolsets need are asked for. The pair is stored like every token here (owner-only, per
// node), and the server uses it for that node from then on ("login" mode in src/node/node.ts).

import { type Config, remoteOverPlainHttp } from "../config/config.ts";
import { createTokenStore, credentialIdentity, storedTokens } from "../node/tokens.ts";
import { discoverNode, safeOrigin } from "../node/discovery.ts";
import { TOOLSET_PERMISSIONS } from "../tools/permissions.ts";
import { log } from "../lib/log.ts";

/** How long the person has to finish signing in. */
export const LOGIN_TIMEOUT_MS = 120_000;

/** What a login needs beyond the configuration (tests pass their own browser). */
export interface LoginDeps {
  /** Opens the sign-in page; the default runs $BROWSER, else the platform's opener. */
  open?(url: string): Promise<void>;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Runs `mero-mcp login [node]`; the exit code. */
export async function runLogin(
  config: Config,
  env: Record<string, string | undefined>,
  deps: LoginDeps = {},
): Promise<number> {
  const name = config.args[0] ?? null;
  let url: string;
  try {
    url = await nodeUrlOf(config, name);
  } catch (error) {
    log.error((error as Error).message);
    return 2;
  }
  if (remoteOverPlainHttp(url) && !config.allowRemoteHttp) {
    log.error(
      `The node at ${
        safeOrigin(url)
      } is on another machine over plain http: its tokens would cross the network unencrypted. Use an https address, or set CALIMERO_MCP_ALLOW_REMOTE_HTTP=1 to accept that.`,
    );
    return 2;
  }
  const fetchFn = deps.fetch ?? fetch;
  const needs = await fetchFn(`${new URL(url).origin}/admin-api/contexts`, { redirect: "manual" })
    .then((r) => (r.body?.cancel(), r.status === 401 || r.status === 403), () => null);
  if (needs === null) {
    log.error(
      `The node at ${safeOrigin(url)} does not answer. Check that it runs at that address.`,
    );
    return 1;
  }
  if (!needs) {
    log.info(
      `The node at ${safeOrigin(url)} asks for no authentication: there is nothing to log in to.`,
    );
    return 0;
  }

  const state = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const got = Promise.withResolvers<{ access: string; refresh: string | null }>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => callback(request, state, got),
  );
  const permissions = [...new Set(config.toolsets.flatMap((t) => TOOLSET_PERMISSIONS[t] ?? []))];
  const signIn = new URL("/auth/login", new URL(url).origin);
  signIn.searchParams.set(
    "callback-url",
    `http://127.0.0.1:${server.addr.port}/callback?state=${state}`,
  );
  signIn.searchParams.set("app-url", url);
  signIn.searchParams.set("permissions", permissions.join(","));
  log.info(
    `Sign in to ${safeOrigin(url)} in your browser (${
      Math.round((deps.timeoutMs ?? LOGIN_TIMEOUT_MS) / 1000)
    } s). If no browser opens, visit: ${signIn}`,
  );
  await (deps.open ?? ((u) => openBrowser(u, env)))(signIn.toString())
    .catch((error) =>
      log.warn(`No browser opened (${(error as Error).message}): visit the address above.`)
    );
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const tokens = await Promise.race([
      got.promise,
      new Promise<never>((_, reject) =>
        timer = setTimeout(
          () => reject(new Error("Signing in timed out: run mero-mcp login again.")),
          deps.timeoutMs ?? LOGIN_TIMEOUT_MS,
        )
      ),
    ]);
    const store = await createTokenStore({
      stateDir: config.stateDir,
      nodeUrl: url,
      identity: credentialIdentity("login", config),
    });
    await store.write(storedTokens(tokens.access, tokens.refresh));
    log.info(
      `Signed in to ${safeOrigin(url)}${
        name ? ` (node "${name}")` : ""
      }: mero-mcp uses these tokens for this node from now on (permissions asked: ${
        permissions.join(", ")
      }).`,
    );
    return 0;
  } catch (error) {
    log.error((error as Error).message);
    return 1;
  } finally {
    clearTimeout(timer);
    await server.shutdown();
  }
}

/** The address of the node `name` names: a named node, or (no name, or "default") the node the server finds. */
async function nodeUrlOf(config: Config, name: string | null): Promise<string> {
  if (name !== null && name !== "default") {
    const named = [...config.nodes, ...config.scannedNodes].find((n) => n.name === name);
    if (!named) {
      const names = [...config.nodes, ...config.scannedNodes].map((n) => n.name);
      throw new Error(
        `No node is named "${name}"${
          names.length ? ` (named: ${names.join(", ")})` : ""
        }. Name it in CALIMERO_NODES (name=url), or omit it for the node mero-mcp finds.`,
      );
    }
    return named.url;
  }
  return (await discoverNode(config)).url;
}

/** The callback: the tokens as query parameters (checked against the nonce), else a page that sends the fragment's. */
function callback(
  request: Request,
  state: string,
  got: PromiseWithResolvers<{ access: string; refresh: string | null }>,
): Response {
  const url = new URL(request.url);
  if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
  const access = url.searchParams.get("access_token");
  if (access === null) {
    return new Response(FRAGMENT_PAGE, { headers: { "content-type": "text/html" } });
  }
  if (url.searchParams.get("state") !== state) {
    got.reject(
      new Error(
        "The sign-in answer did not carry this login's state: refused (run mero-mcp login again).",
      ),
    );
    return new Response(
      page("Authentication rejected", "Close this window and run the command again."),
      {
        status: 400,
        headers: { "content-type": "text/html" },
      },
    );
  }
  got.resolve({ access, refresh: url.searchParams.get("refresh_token") });
  return new Response(page("Signed in", "You can close this window and return to the terminal."), {
    headers: { "content-type": "text/html" },
  });
}

function page(title: string, text: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
    `<body style="font-family:sans-serif;text-align:center;padding-top:4rem"><h1>${title}</h1><p>${text}</p></body></html>`;
}

/** Sends tokens the node put in the URL's fragment back as query parameters, with the state nonce. */
const FRAGMENT_PAGE =
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Signing in</title></head><body>
<script>
const params = new URLSearchParams(window.location.hash.slice(1));
const access = params.get("access_token");
if (access) {
  const q = new URLSearchParams({ access_token: access });
  const refresh = params.get("refresh_token");
  if (refresh) q.set("refresh_token", refresh);
  const state = new URLSearchParams(window.location.search).get("state");
  if (state) q.set("state", state);
  window.location.replace("/callback?" + q.toString());
} else document.body.textContent = "No tokens arrived. Run mero-mcp login again.";
</script></body></html>`;

/** Opens `url` with $BROWSER, else the platform's opener. */
async function openBrowser(url: string, env: Record<string, string | undefined>): Promise<void> {
  const custom = env.BROWSER?.trim();
  const [command, ...args] = custom
    ? [custom, url]
    : Deno.build.os === "darwin"
    ? ["open", url]
    : Deno.build.os === "windows"
    ? ["cmd", "/c", "start", "", url]
    : ["xdg-open", url];
  const child = new Deno.Command(command, { args, stdout: "null", stderr: "null" }).spawn();
  const status = await child.status;
  if (!status.success) throw new Error(`${command} exited with ${status.code}`);
}
