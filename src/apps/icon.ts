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

/**
 * The icon of an app's metadata, or null when it has none or one that does not pass: an `https:` URL without
 * credentials, or a base64 `data:` PNG/JPEG/WebP/GIF (never SVG, which can carry script), at most
 * {@link MAX_ICON_CHARS} characters.
 */
export function appIcon(metadata: Record<string, unknown> | null): Icon | null {
  const given = metadata?.icon;
  if (typeof given !== "string") return null;
  const src = given.trim();
  if (src.length === 0 || src.length > MAX_ICON_CHARS) return null;
  const data = /^data:(image\/[a-z+.-]+);base64,([A-Za-z0-9+/]+={0,2})$/.exec(src);
  if (data) return RASTER.has(data[1]) ? { src, mimeType: data[1] } : null;
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" || url.username !== "" || url.password !== "") return null;
  if (/[\s"<>\\^`{|}]/.test(src)) return null;
  return { src: url.href };
}
