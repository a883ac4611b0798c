import assert from "assert";
import { blobIdOf, contentHash } from "../../primitives/blob_hash.ts";
import { type TestTool, testTool, toolContext } from "../../testing/tool_deps.ts";
import type { Config } from "../../config/config.ts";
import type { Session } from "../../node/session.ts";
import type { Application } from "../../mero/mod.ts";
import type { ToolDeps } from "../deps.ts";
import type { ToolCall } from "../tool.ts";
import { blobTools } from "./mod.ts";
import { decodeBase64, MAX_BLOB_BYTES } from "./blobs.ts";
import { parseCoords, registryInstall } from "./bundle_registry.ts";

const ctx: ToolCall = {
  signal: new AbortController().signal,
  progress: () => {},
  confirm: () => Promise.resolve(null),
};

Deno.test("parseCoords splits package@version at the last @ and refuses an empty half", () => {
  assert.deepEqual(parseCoords("com.calimero.kv-store@1.0.0"), {
    pkg: "com.calimero.kv-store",
    version: "1.0.0",
  });
  assert.deepEqual(parseCoords("@scope/app@2.0.0"), { pkg: "@scope/app", version: "2.0.0" });
  for (
    const bad of ["kv-store", "@1.0.0", "kv-store@", "@", " @ ", "..@..", ".@1.0.0", "com.x@.."]
  ) {
    assert.throws(() => parseCoords(bad), /is not of the form "package@version"/, bad);
  }
});

/** A fetch that records the URL and answers with `status`. */
function registry(status: number) {
  const urls: string[] = [];
  const fetch = (input: string | URL | Request) => {
    urls.push(String(input));
    return Promise.resolve(new Response(status === 200 ? "{}" : null, { status }));
  };
  return { urls, fetch: fetch as typeof globalThis.fetch };
}

Deno.test("registryInstall checks the bundle, then points the node at its artifact", async () => {
  const reg = registry(200);
  const request = await registryInstall("https://reg.example/prefix/", "com.a.b@1.2.3", {
    timeoutMs: 1000,
    fetch: reg.fetch,
  });
  assert.deepEqual(reg.urls, ["https://reg.example/prefix/api/v2/bundles/com.a.b/1.2.3"]);
  assert.deepEqual(request, {
    url: "https://reg.example/prefix/artifacts/com.a.b/1.2.3/com.a.b-1.2.3.mpk",
    package: "com.a.b",
    version: "1.2.3",
  });
});

Deno.test("registryInstall explains a missing registry, a missing bundle, and a registry failure", async () => {
  await assert.rejects(
    registryInstall(null, "com.a.b@1", { timeoutMs: 1000 }),
    /CALIMERO_REGISTRY_URL/,
  );
  await assert.rejects(
    registryInstall("https://reg.example", "com.a.b@9", { timeoutMs: 1000, ...registry(404) }),
    /has no bundle com\.a\.b version 9/,
  );
  await assert.rejects(
    registryInstall("https://reg.example", "com.a.b@9", { timeoutMs: 1000, ...registry(502) }),
    /answered HTTP 502/,
  );
  const refused = (() => Promise.reject(new TypeError("connection refused"))) as typeof fetch;
  await assert.rejects(
    registryInstall("https://u:secret@reg.example?t=1", "com.a.b@9", {
      timeoutMs: 1000,
      fetch: refused,
    }),
    (error: Error) =>
      /Cannot reach the app registry/.test(error.message) &&
      !error.message.includes("secret"),
  );
});

Deno.test("decodeBase64 reads standard and URL-safe base64, with or without padding", () => {
  const cases: [string, number[]][] = [
    ["aGk=", [104, 105]],
    ["aGk", [104, 105]],
    ["+/8=", [251, 255]],
    ["-_8", [251, 255]],
    ["aG\nk=", [104, 105]],
    ["", []],
  ];
  for (const [text, bytes] of cases) assert.deepEqual([...decodeBase64(text)], bytes, text);
  for (const bad of ["a", "a*b=", "aGk=x"]) assert.throws(() => decodeBase64(bad), /base64/, bad);
});

Deno.test("decodeBase64 refuses more than 10 MiB from the text's length alone", () => {
  const justOver = "A".repeat(Math.ceil((MAX_BLOB_BYTES + 1) / 3) * 4);
  assert.throws(() => decodeBase64(justOver), /at most 10485760 bytes \(10 MiB\)/);
  const exactly = "A".repeat(Math.ceil(MAX_BLOB_BYTES / 3) * 4 - 4) + "AA==";
  assert.equal(decodeBase64(exactly).length, MAX_BLOB_BYTES);
});

type Admin = Record<string, (...args: unknown[]) => unknown>;

function fakeDeps(admin: Admin, refresh: () => Promise<void> = () => Promise.resolve()) {
  const events: string[] = [];
  const app = { id: "AppId", package: "com.a.chat" } as Application;
  const deps = toolContext({
    config: { registryUrl: null, nodeTimeoutMs: 1000 } as unknown as Config,
    node: {
      admin: new Proxy(admin, {
        get: (target, method: string) => (...args: unknown[]) => {
          events.push(method);
          return Promise.resolve(target[method](...args));
        },
      }),
    } as unknown as Session,
    apps: {
      list: () => Promise.resolve([]),
      resolve: (name: string) => {
        events.push(`resolve ${name}`);
        return Promise.resolve(app);
      },
      abi: () => Promise.reject(new Error("no ABI")),
      refresh: async () => {
        events.push("refresh");
        await refresh();
      },
    },
    notAnswering: () => [],
  });
  return { deps, events };
}

function tool(deps: ToolDeps, name: string): TestTool {
  return testTool(blobTools(deps).find((t) => t.name === name)!);
}

const text = (result: { content: unknown }) => (result.content as { text: string }[])[0].text;

Deno.test("install_application awaits the catalog refresh before answering; a failed refresh is not an error", async () => {
  const { deps, events } = fakeDeps(
    { installApplication: () => ({ applicationId: "NewApp" }) },
    () => Promise.reject(new Error("node busy")),
  );
  const result = await tool(deps, "install_application").call({ url: "https://x/app.mpk" }, ctx);
  assert.ok(!result.isError, text(result));
  assert.deepEqual(JSON.parse(text(result)), { applicationId: "NewApp" });
  assert.deepEqual(events, ["installApplication", "refresh"]);
});

Deno.test("install_application needs exactly one of url and coords", async () => {
  const { deps, events } = fakeDeps({});
  for (const args of [{}, { url: "https://x/a.mpk", coords: "a@1" }]) {
    const result = await tool(deps, "install_application").call(args, ctx);
    assert.equal(result.isError, true);
    assert.match(text(result), /exactly one of coords/);
  }
  assert.deepEqual(events, []);
});

Deno.test("uninstall_application resolves the name, uninstalls by id, then refreshes", async () => {
  const { deps, events } = fakeDeps({ uninstallApplication: (id) => ({ applicationId: id }) });
  const result = await tool(deps, "uninstall_application").call({ application: "chat" }, ctx);
  assert.deepEqual(JSON.parse(text(result)), { applicationId: "AppId" });
  assert.deepEqual(events, ["resolve chat", "uninstallApplication", "refresh"]);
});

Deno.test("upload_blob refuses an oversized blob before any node call", async () => {
  const { deps, events } = fakeDeps({ uploadBlob: () => ({ blobId: "B", size: 0 }) });
  const data = "A".repeat(Math.ceil((MAX_BLOB_BYTES + 1) / 3) * 4);
  const result = await tool(deps, "upload_blob").call({ data }, ctx);
  assert.equal(result.isError, true);
  assert.match(text(result), /Nothing was uploaded/);
  assert.deepEqual(events, []);
});

Deno.test("upload_blob sends the decoded bytes with the content hash and the context behind an alias", async () => {
  const sent: unknown[] = [];
  const { deps } = fakeDeps({
    lookupContextAlias: () => "11111111111111111111111111111111",
    uploadBlob: (bytes, target) => {
      sent.push([...(bytes as Uint8Array)], target);
      return { blobId: "B", size: 2 };
    },
  });
  const hash = await contentHash(new TextEncoder().encode("hi"));
  const result = await tool(deps, "upload_blob").call({ data: "aGk=", hash, context: "room" }, ctx);
  assert.deepEqual(JSON.parse(text(result)), { blobId: "B", size: 2, hash });
  assert.deepEqual(sent, [[104, 105], { hash, contextId: "11111111111111111111111111111111" }]);
  // A blob id, or any other hash, is refused before the upload, saying which hash the node checks.
  const blobId = await blobIdOf(new TextEncoder().encode("hi"));
  const asId = await tool(deps, "upload_blob").call({ data: "aGk=", hash: blobId }, ctx);
  assert.match(text(asId), new RegExp(`blob id.*content hash instead \\(${hash}\\)`));
  const other = await tool(deps, "upload_blob").call({ data: "aGk=", hash: "abc" }, ctx);
  assert.match(text(other), /does not match these bytes/);
  assert.equal(sent.length, 2, "nothing more was sent");
});
