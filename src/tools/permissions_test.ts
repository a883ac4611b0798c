import assert from "assert";
import { covers, missingFor } from "./permissions.ts";

Deno.test("a permission covers itself and its children; admin covers everything", () => {
  assert.equal(covers(["blob"], "blob:get"), true);
  assert.equal(covers(["blob:get"], "blob"), false);
  assert.equal(covers(["admin"], "group:manage"), true);
  assert.equal(covers(["context:list"], "context:execute"), false);
});

Deno.test("missingFor names what a toolset needs that the credential lacks", () => {
  const app = [
    "context:list",
    "context:create",
    "context:execute",
    "application:list",
    "namespace",
  ];
  assert.deepEqual(missingFor("apps", app), []);
  assert.deepEqual(missingFor("blobs", app), ["application", "blob"]);
  assert.deepEqual(missingFor("governance", app), ["group"]);
});
