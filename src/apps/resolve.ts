// Application resolution: from what a user typed to one installed application, in tiers
// (exact id, exact package, short names); the first tier with a match decides. Pure: no node calls.

import { decodeMetadata } from "./guide.ts";
import { inline, oneLine } from "../lib/text.ts";
import type { Application } from "../mero/mod.ts";

/** Why a name did not resolve: several packages, one package from several signers, or nothing. */
export type AppResolutionErrorKind = "ambiguous" | "multi-signer" | "not-found";

/** A name that does not resolve to exactly one app; the message says what to pass instead. */
export class AppResolutionError extends Error {
  override name = "AppResolutionError";
  /** Which of the three failures this is. */
  readonly kind: AppResolutionErrorKind;
  /** What the user typed. */
  readonly input: string;
  /** The apps that matched (ambiguous, multi-signer), or every installed app (not-found). */
  readonly candidates: Application[];

  constructor(
    kind: AppResolutionErrorKind,
    input: string,
    candidates: Application[],
    message: string,
  ) {
    super(message);
    this.kind = kind;
    this.input = input;
    this.candidates = candidates;
  }
}

/** One (application, service) pair: the unit the catalog lists and the ABI loader reads. */
export interface AppUnit {
  /** The service name of a multi-service bundle, or null for an app without services. */
  service: string | null;
  /** The content-addressed blob id of this unit's bytecode (the service's own for a service). */
  bytecodeBlobId: string;
}

/**
 * The app's units: one per service name, sorted by code units, when the record has a non-empty
 * `services` map; otherwise one unit with service null and the app's own bytecode blob.
 */
export function appUnits(app: Application): AppUnit[] {
  const services = app.services ?? {};
  const names = Object.keys(services).sort(byCodeUnits);
  if (names.length === 0) return [{ service: null, bytecodeBlobId: app.blob.bytecode }];
  return names.map((service) => ({ service, bytecodeBlobId: services[service].bytecode }));
}

/** The installed version (the record's `version`), or null when the node reports none. */
export function appVersion(app: Application): string | null {
  return typeof app.version === "string" && app.version !== "" ? inline(app.version) : null;
}

/** The display name the app's author chose (`metadata.name`), or null when there is none. */
export function metadataName(app: Application): string | null {
  const name = decodeMetadata(app.metadata)?.name;
  // The author's text: one line of at most 80 characters, without control characters.
  const line = typeof name === "string" ? oneLine(name, MAX_NAME_LENGTH) : "";
  return line !== "" ? line : null;
}

/** The longest display name shown (in tool titles, lists, the guide's framing). */
export const MAX_NAME_LENGTH = 80;

/** The name to show people: the metadata name, else the package, else the application id. */
export function displayName(app: Application): string {
  return metadataName(app) ?? packageOrId(app);
}

/**
 * The service of `app` a call uses: `wanted` when the app has it, else the app's only service, else null for an app
 * without services. Throws, in the one set of words every tool uses, when `wanted` is not one of the app's services
 * or the app has several and none is wanted.
 */
export function chooseService(app: Application, wanted: string | null): string | null {
  const services = appUnits(app).flatMap((u) => (u.service === null ? [] : [u.service]));
  const label = packageOrId(app);
  if (wanted !== null) {
    if (services.includes(wanted)) return wanted;
    throw new Error(
      services.length === 0
        ? `${label} has no services; leave service out.`
        : `${label} has no service "${wanted}". Its services: ${services.join(", ")}.`,
    );
  }
  if (services.length <= 1) return services[0] ?? null;
  throw new Error(
    `${label} has several services: ${services.join(", ")}. Pass service to choose one.`,
  );
}

/** The app's package, or its id when it has none: what lists and slugs are keyed on. */
export function packageOrId(app: Application): string {
  // The node's text, quoted in our own lines: made one line (a newline in it would start a line of its own).
  return typeof app.package === "string" && app.package !== "" ? inline(app.package) : app.id;
}

/** An app as a person reads it in a sentence: its package (else its id) and its version, each one line. */
export function appName(app: Application): string {
  const version = appVersion(app);
  return version === null ? packageOrId(app) : `${packageOrId(app)} ${version}`;
}

/** The part of the package after its last `.` (the whole package when it has no dot), or null. */
function packageSegment(app: Application): string | null {
  if (typeof app.package !== "string" || app.package === "") return null;
  return app.package.slice(app.package.lastIndexOf(".") + 1);
}

/**
 * Resolves `input` to one installed app: exact application id, else exact package, else the apps
 * whose trailing package segment or display name equals it case-insensitively (whole values only).
 * Throws AppResolutionError when the deciding tier holds several packages ("ambiguous"), one package
 * from several signers ("multi-signer"), or when no tier matches ("not-found").
 */
export function resolveApplication(apps: Application[], input: string): Application {
  const wanted = input.trim();
  const byId = apps.filter((app) => app.id === wanted);
  if (byId.length > 0) return byId[0];
  const byPackage = apps.filter((app) => app.package === wanted);
  if (byPackage.length > 0) return decide(byPackage, input);
  const folded = wanted.toLowerCase();
  const byShortName = folded === ""
    ? []
    : apps.filter((app) =>
      packageSegment(app)?.toLowerCase() === folded || metadataName(app)?.toLowerCase() === folded
    );
  if (byShortName.length > 0) return decide(byShortName, input);
  throw notFound(apps, input);
}

/** One match wins; one package from several signers or several packages is an error. */
function decide(matches: Application[], input: string): Application {
  const sorted = sortApps(matches);
  if (sorted.length === 1) return sorted[0];
  const packages = unique(sorted.map(packageOrId));
  if (packages.length === 1) {
    const ids = sorted.map((app) => `${app.id} (signer ${app.signer_id ?? "unknown"})`);
    throw new AppResolutionError(
      "multi-signer",
      input,
      sorted,
      `Application ${quote(input)} is installed from ${sorted.length} signers: ${
        ids.join(", ")
      }. ` +
        `Pass the application id of the one you mean.`,
    );
  }
  const listed = packages.map((pkg) => {
    const same = sorted.filter((app) => packageOrId(app) === pkg);
    return same.length > 1 ? `${pkg} (ids ${same.map((app) => app.id).join(", ")})` : pkg;
  });
  throw new AppResolutionError(
    "ambiguous",
    input,
    sorted,
    `Application ${quote(input)} is ambiguous: ${listed.join(", ")}. ` +
      `Pass the full package name or the application id.`,
  );
}

function notFound(apps: Application[], input: string): AppResolutionError {
  if (apps.length === 0) {
    return new AppResolutionError(
      "not-found",
      input,
      [],
      `No application matches ${quote(input)}: no application is installed on this node. ` +
        `Install one with install_application (a package@version or a bundle URL).`,
    );
  }
  const sorted = sortApps(apps);
  const listed = sorted.map((app) => {
    const name = metadataName(app);
    return name === null || name === packageOrId(app)
      ? packageOrId(app)
      : `${packageOrId(app)} ("${name}")`;
  });
  return new AppResolutionError(
    "not-found",
    input,
    sorted,
    `No installed application matches ${quote(input)}. Installed: ${unique(listed).join(", ")}. ` +
      `Pass a package name, its last segment, a display name or an application id.`,
  );
}

/** Apps in catalog order: package (or id), then id, by code units. */
export function sortApps(apps: Application[]): Application[] {
  return [...apps].sort((a, b) =>
    byCodeUnits(packageOrId(a), packageOrId(b)) || byCodeUnits(a.id, b.id)
  );
}

/** Compares strings by UTF-16 code units (never by locale), for stable orders on every machine. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The user's input as a JSON string literal, cut to 80 characters so a message stays readable. */
function quote(input: string): string {
  return JSON.stringify(input.length > 80 ? `${input.slice(0, 77)}...` : input);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
