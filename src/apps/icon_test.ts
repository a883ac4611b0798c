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
