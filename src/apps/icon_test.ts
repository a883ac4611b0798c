import assert from "assert";
import { appIcon, MAX_ICON_CHARS } from "./icon.ts";

Deno.test("an app's icon passes as an https URL or a small raster data image, and nothing else", () => {
  assert.deepEqual(appIcon({ icon: "https://apps.example.com/kv.png" }), {
    src: "https://apps.example.com/kv.png",
  });
  assert.deepEqual(appIcon({ icon: "data:image/png;base64,iVBORw0KGgo=" }), {
    src: "data:image/png;base64,iVBORw0KGgo=",
    mimeType: "image/png",
  });
  for (
    const icon of [
      "http://apps.example.com/kv.png",
      "javascript:alert(1)",
      "file:///etc/passwd",
      "https://user:pw@apps.example.com/kv.png",
      "data:image/svg+xml;base64,PHN2Zz4=",
      "data:text/html;base64,PGI+",
      `data:image/png;base64,${"A".repeat(MAX_ICON_CHARS)}`,
      "rocket",
      "",
      42,
    ]
  ) assert.equal(appIcon({ icon }), null, String(icon).slice(0, 40));
  assert.equal(appIcon(null), null);
});

Deno.test("an icon cannot send the client to this machine, the local network, a beacon, or hide SVG in a PNG label", () => {
  const svg = btoa('<svg onload="alert(1)"/>');
  for (
    const icon of [
      "https://127.0.0.1:2428/admin-api/contexts",
      "https://127.0.0.1/x.png",
      "https://169.254.169.254/latest/meta-data/",
      "https://[::1]/x.png",
      "https://10.0.0.1/x.png",
      "https://2130706433/x.png",
      "https://localhost/x.png",
      "https://node.local/x.png",
      "https://metadata.internal/x.png",
      "https://intranet/x.png",
      "https://apps.example.com:8443/x.png",
      "https://beacon.example.net/p.png?who=alice&t=1",
      "https://apps.example.com/x.png#me",
      "https://x.example.com/a'onerror='alert(1)'.png",
      `data:image/png;base64,${svg}`,
      `data:image/gif;base64,${btoa("\x89PNG....")}`,
    ]
  ) assert.equal(appIcon({ icon }), null, icon);
  // The real things still pass.
  const gif = btoa("GIF89a\x01\x00\x01\x00");
  assert.deepEqual(appIcon({ icon: `data:image/gif;base64,${gif}` }), {
    src: `data:image/gif;base64,${gif}`,
    mimeType: "image/gif",
  });
  assert.ok(appIcon({ icon: "https://cdn.calimero.network/apps/kv-store/icon.png" }));
});
