// `deno run -A tools/release_packages.ts [--dist dist] [--version X.Y.Z] [--sign-cert C --sign-key K |
// --sign-self-signed]`: turns the compiled executables in
// `dist/` (`mero-mcp-<target>[.exe]`, as `deno task compile --target all` writes them) into what users install:
// one npm package per platform and the launcher package (dist/npm/), one `.mcpb` bundle per platform
// (dist/mcpb/), the registry's server.json with each bundle's SHA-256 (dist/server.json), and SHA256SUMS. The
// release workflow runs it after compiling; the tests run it on stand-in executables.

import { zipSync } from "fflate";
import { resolve } from "node:path";
import denoJson from "../deno.json" with { type: "json" };
import launcherJson from "../npm/mero-mcp/package.json" with { type: "json" };
import manifestTemplate from "../release/mcpb-manifest.json" with { type: "json" };
import serverTemplate from "../release/server.json" with { type: "json" };

/** Each compile target and the npm platform it is published for. */
export const PLATFORMS = [
  { target: "x86_64-unknown-linux-gnu", os: "linux", cpu: "x64" },
  { target: "aarch64-unknown-linux-gnu", os: "linux", cpu: "arm64" },
  { target: "x86_64-apple-darwin", os: "darwin", cpu: "x64" },
  { target: "aarch64-apple-darwin", os: "darwin", cpu: "arm64" },
  { target: "x86_64-pc-windows-msvc", os: "win32", cpu: "x64" },
] as const;

type Platform = typeof PLATFORMS[number];

/** Where the release's files are downloaded from (the `.mcpb` bundles' identifiers in server.json). */
export const RELEASE_BASE = "https://github.com/calimero-network/mero-mcp/releases/download";

/** The executable's name inside a package or bundle. */
function exeName(platform: Platform): string {
  return platform.os === "win32" ? "mero-mcp.exe" : "mero-mcp";
}

/** The compiled executable's file name in dist/. */
export function binaryName(platform: Platform): string {
  return `mero-mcp-${platform.target}${platform.os === "win32" ? ".exe" : ""}`;
}

/** The npm package that carries one platform's executable. */
export function platformPackage(platform: Platform, version: string): Record<string, unknown> {
  return {
    name: `${launcherJson.name}-${platform.os}-${platform.cpu}`,
    version,
    description:
      `The mero-mcp executable for ${platform.os} ${platform.cpu} (installed by ${launcherJson.name}).`,
    repository: launcherJson.repository,
    os: [platform.os],
    cpu: [platform.cpu],
    // `deno compile` links glibc: npm then skips this package on a musl system (Alpine) instead of installing an
    // executable that cannot start there.
    ...(platform.os === "linux" ? { libc: ["glibc"] } : {}),
    files: [`bin/${exeName(platform)}`, "README.md"],
    preferUnplugged: true,
  };
}

/** The `.mcpb` manifest of one platform's bundle. */
export function mcpbManifest(platform: Platform, version: string): Record<string, unknown> {
  const entry = `server/${exeName(platform)}`;
  const template = structuredClone(manifestTemplate);
  template.version = version;
  template.server.entry_point = entry;
  template.server.mcp_config.command = `\${__dirname}/${entry}`;
  template.compatibility = { ...template.compatibility, platforms: [platform.os] };
  return template;
}

/** The SHA-256 of bytes, as lowercase hex. */
export async function sha256(bytes: Uint8Array): Promise<string> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>))
    .toHex();
}

/** The registry's server.json: the npm package, and every bundle built with its SHA-256. */
export function serverJson(
  version: string,
  bundles: { file: string; sha256: string; platform?: Platform }[],
): Record<string, unknown> {
  const template = structuredClone(serverTemplate);
  template.version = version;
  const npm = { ...template.packages[0], version };
  const mcpb = bundles.map(({ file, sha256 }) => ({
    registryType: "mcpb",
    identifier: `${RELEASE_BASE}/v${version}/${file}`,
    version,
    fileSha256: sha256,
    transport: { type: "stdio" },
  }));
  // The 2025-12-11 schema's Package has no platform field: which OS and CPU each bundle is for goes in the one
  // place it leaves publishers, `_meta`'s publisher-provided object, keyed by the bundle's identifier.
  const platforms = Object.fromEntries(
    bundles.filter((b) => b.platform !== undefined).map(({ file, platform }) => [
      `${RELEASE_BASE}/v${version}/${file}`,
      { os: platform!.os, cpu: platform!.cpu, target: platform!.target },
    ]),
  );
  return {
    ...template,
    packages: [npm, ...mcpb],
    ...(Object.keys(platforms).length > 0
      ? {
        _meta: {
          "io.modelcontextprotocol.registry/publisher-provided": { mcpbPlatforms: platforms },
        },
      }
      : {}),
  };
}

/** Marks a file executable (npm keeps the mode in the tarball); Windows has no such mode. */
async function executable(path: string): Promise<void> {
  if (Deno.build.os !== "windows") await Deno.chmod(path, 0o755);
}

/** What {@link buildRelease} wrote. */
export interface ReleaseFiles {
  platforms: string[];
  npmDirs: string[];
  bundles: string[];
}

/** The mcpb CLI that signs bundles (its `sign` runs on Node.js only), pinned. */
export const MCPB_CLI = "@anthropic-ai/mcpb@2.1.2";

/**
 * How bundles are signed: with a certificate and key (the release's, from secrets), self-signed (a test, or a
 * release without a certificate: Claude Desktop then shows it as self-signed), or not at all.
 */
export type Signing = { cert: string; key: string } | "self-signed" | null;

/** Signs one bundle in place with the mcpb CLI (`npx`); the signature is appended to the zip. */
async function signBundle(path: string, signing: Exclude<Signing, null>): Promise<void> {
  const args = signing === "self-signed"
    ? ["--self-signed"]
    : ["--cert", resolve(signing.cert), "--key", resolve(signing.key)];
  // A self-signed certificate and its key are written to the working directory: a temporary one, never dist/.
  const cwd = await Deno.makeTempDir({ prefix: "mero-mcp-sign-" });
  const out = await new Deno.Command("npx", {
    args: [
      "-y",
      MCPB_CLI,
      "sign",
      resolve(path),
      ...args.map((a) => a.endsWith(".pem") ? resolve(a) : a),
    ],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output().finally(() => Deno.remove(cwd, { recursive: true }).catch(() => {}));
  if (!out.success) {
    throw new Error(
      `mcpb sign ${path} failed: ${new TextDecoder().decode(out.stderr).slice(-2000)}`,
    );
  }
}

/** Builds every package and bundle from the executables found in `dist`; a missing target is skipped. */
export async function buildRelease(
  dist: string,
  version: string,
  signing: Signing = null,
): Promise<ReleaseFiles> {
  if (version !== denoJson.version) {
    throw new Error(
      `version ${version} is not deno.json's ${denoJson.version}: bump them together.`,
    );
  }
  const written: ReleaseFiles = { platforms: [], npmDirs: [], bundles: [] };
  const sums: string[] = [];
  const bundles: { file: string; sha256: string; platform: Platform }[] = [];
  for (const platform of PLATFORMS) {
    let binary: Uint8Array;
    try {
      binary = await Deno.readFile(`${dist}/${binaryName(platform)}`);
    } catch {
      continue;
    }
    written.platforms.push(platform.target);
    sums.push(`${await sha256(binary)}  ${binaryName(platform)}`);

    const pkg = platformPackage(platform, version);
    const dir = `${dist}/npm/${(pkg.name as string).split("/")[1]}`;
    await Deno.mkdir(`${dir}/bin`, { recursive: true });
    await Deno.writeTextFile(`${dir}/package.json`, JSON.stringify(pkg, null, 2) + "\n");
    await Deno.writeFile(`${dir}/bin/${exeName(platform)}`, binary, { mode: 0o755 });
    await executable(`${dir}/bin/${exeName(platform)}`);
    await Deno.writeTextFile(
      `${dir}/README.md`,
      `# ${pkg.name}\n\n${pkg.description} Install ${launcherJson.name} instead: it picks this package ` +
        "for you.\n",
    );
    written.npmDirs.push(dir);

    const file = `mero-mcp-${platform.target}.mcpb`;
    const manifest = new TextEncoder().encode(
      JSON.stringify(mcpbManifest(platform, version), null, 2) + "\n",
    );
    // Unix mode 0755 in the entry's external attributes, so the executable stays executable when unpacked.
    const zip = zipSync({
      "manifest.json": manifest,
      [`server/${exeName(platform)}`]: [binary, { attrs: (0o100755 << 16) >>> 0, os: 3 }],
    });
    await Deno.mkdir(`${dist}/mcpb`, { recursive: true });
    await Deno.writeFile(`${dist}/mcpb/${file}`, zip);
    // Signed before it is hashed: server.json and SHA256SUMS name the bytes users download.
    if (signing !== null) await signBundle(`${dist}/mcpb/${file}`, signing);
    const digest = await sha256(await Deno.readFile(`${dist}/mcpb/${file}`));
    bundles.push({ file, sha256: digest, platform });
    sums.push(`${digest}  ${file}`);
    written.bundles.push(`${dist}/mcpb/${file}`);
  }
  if (written.platforms.length === 0) {
    throw new Error(`no executable in ${dist}: run \`deno task compile --target all\` first.`);
  }

  const launcher = `${dist}/npm/mero-mcp`;
  await Deno.mkdir(`${launcher}/bin`, { recursive: true });
  const root = new URL("../npm/mero-mcp/", import.meta.url);
  await Deno.writeTextFile(
    `${launcher}/package.json`,
    JSON.stringify(launcherJson, null, 2) + "\n",
  );
  await Deno.copyFile(new URL("bin/mero-mcp.js", root), `${launcher}/bin/mero-mcp.js`);
  await executable(`${launcher}/bin/mero-mcp.js`);
  await Deno.copyFile(new URL("README.md", root), `${launcher}/README.md`);
  written.npmDirs.push(launcher);

  await Deno.writeTextFile(
    `${dist}/server.json`,
    JSON.stringify(serverJson(version, bundles), null, 2) + "\n",
  );
  await Deno.writeTextFile(`${dist}/SHA256SUMS`, sums.join("\n") + "\n");
  return written;
}

if (import.meta.main) {
  const arg = (name: string) => {
    const index = Deno.args.indexOf(name);
    return index === -1 ? undefined : Deno.args[index + 1];
  };
  const dist = arg("--dist") ?? "dist";
  const version = (arg("--version") ?? denoJson.version).replace(/^v/, "");
  const cert = arg("--sign-cert");
  const key = arg("--sign-key");
  const signing: Signing = cert && key
    ? { cert, key }
    : Deno.args.includes("--sign-self-signed")
    ? "self-signed"
    : null;
  const files = await buildRelease(dist, version, signing);
  Deno.stderr.writeSync(
    new TextEncoder().encode(
      `built ${files.platforms.length} platform(s): ${files.npmDirs.length} npm packages, ${files.bundles.length} bundles, server.json\n`,
    ),
  );
}
