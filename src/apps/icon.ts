// An app's icon, as its author put it in the bundle's metadata (core crates/bundle: `metadata.icon`, a string; the
// manifest is at most 1 MiB, so an embedded image can be large). Third-party data: only an https URL or a small
// raster `data:` image passes, and only what stays small enough to repeat on every tool of the app.

/** An MCP icon. */
export interface Icon {
  src: string;
  mimeType?: string;
}

/** The longest icon `src` kept: it is repeated on each of the app's tools and its guide on every tools/list. */
export const MAX_ICON_CHARS = 2_048;

const RASTER = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);

/** The first bytes of each raster type: a `data:` image must be what its label says (SVG labelled PNG is refused). */
const MAGIC: Record<string, (b: Uint8Array) => boolean> = {
  "image/png": (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47,
  "image/jpeg": (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  "image/gif": (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38,
  "image/webp": (b) =>
    String.fromCharCode(...b.subarray(0, 4)) === "RIFF" &&
    String.fromCharCode(...b.subarray(8, 12)) === "WEBP",
};

/**
 * Hosts a client must not be sent to by rendering a list: names that stay on this machine or network (`localhost`,
 * `.local`, `.internal`, …) and every IP literal (loopback, link-local such as the cloud metadata address,
 * private ranges, and the rest: an icon has a name).
 */
function localOrLiteral(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[") || /^[0-9.]+$/.test(host) || /^0x/i.test(host)) return true;
  return host === "localhost" || !host.includes(".") ||
    /\.(localhost|local|internal|intranet|lan|home|corp|arpa)$/.test(host);
}

/**
 * The icon of an app's metadata, or null when it has none or one that does not pass: an `https:` URL on a public
 * host name (no IP literal, no local name, default port) without credentials, query or fragment (a query is how a
 * beacon learns who looked), or a base64 `data:` PNG/JPEG/WebP/GIF whose bytes are that type (never SVG, which can
 * carry script), at most {@link MAX_ICON_CHARS} characters.
 */
export function appIcon(metadata: Record<string, unknown> | null): Icon | null {
  const given = metadata?.icon;
  if (typeof given !== "string") return null;
  const src = given.trim();
  if (src.length === 0 || src.length > MAX_ICON_CHARS) return null;
  const data = /^data:(image\/[a-z+.-]+);base64,([A-Za-z0-9+/]+={0,2})$/.exec(src);
  if (data) {
    if (!RASTER.has(data[1])) return null;
    let head: Uint8Array;
    try {
      head = Uint8Array.fromBase64(data[2].slice(0, 16));
    } catch {
      return null;
    }
    return MAGIC[data[1]](head) ? { src, mimeType: data[1] } : null;
  }
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" || url.username !== "" || url.password !== "") return null;
  if (url.port !== "" || url.search !== "" || url.hash !== "" || localOrLiteral(url.hostname)) {
    return null;
  }
  if (/[\s"'<>\\^`{|}()]/.test(src) || src.includes("?") || src.includes("#")) return null;
  return { src: url.href };
}
