// The `calimero://` resources mero-mcp serves, written once: each template as the server lists it, the URI of one
// resource, and (for events) the context a URI names. The catalog names guides with it; the server registers both.

/** Every app's guide: keyed by application id, so two signers of one package never share one, and by version. */
export const GUIDE_TEMPLATE = "calimero://apps/{applicationId}/{version}/guide";

/** An app's typed client for run_script, by the slug scripts name it with. */
export const CLIENT_TEMPLATE = "calimero://scripts/{slug}.d.ts";

/** The client declarations URI of a script slug (slugs are `[a-z0-9_]`). */
export function clientUri(slug: string): string {
  return CLIENT_TEMPLATE.replace("{slug}", encodeURIComponent(slug));
}

/** A watched context's kept events. */
export const EVENTS_TEMPLATE = "calimero://contexts/{contextId}/events";

/** The `{version}` segment of a guide URI for an app without a version. */
const UNVERSIONED = "unversioned";

/**
 * The URI of an app's guide, with `unversioned` for a missing or empty version. Each segment is encoded as the
 * SDK's UriTemplate expands a `{var}` (encodeURIComponent), so both agree on every URI; an upgrade gives a new URI.
 */
export function guideUri(applicationId: string, version: string | null): string {
  const id = encodeURIComponent(applicationId);
  return `calimero://apps/${id}/${encodeURIComponent(version || UNVERSIONED)}/guide`;
}

/** The events resource URI of a context. */
export function eventsUri(contextId: string): string {
  return EVENTS_TEMPLATE.replace("{contextId}", contextId);
}

/** The context an events resource URI names (a base58 id), or null for any other URI. */
export function eventsUriContext(uri: string): string | null {
  const m = /^calimero:\/\/contexts\/([1-9A-HJ-NP-Za-km-z]{32,44})\/events$/.exec(uri);
  return m ? m[1] : null;
}

/** A tool result too big to return whole, kept a while (src/server/results.ts). */
export const RESULTS_TEMPLATE = "calimero://results/{id}";

/** The URI of a kept result. */
export function resultUri(id: string): string {
  return RESULTS_TEMPLATE.replace("{id}", id);
}

/** The id a kept result's URI names, or null for any other URI. */
export function resultUriId(uri: string): string | null {
  const m = /^calimero:\/\/results\/([0-9a-f-]{36})$/.exec(uri);
  return m ? m[1] : null;
}
