import assert from "assert";
import { capabilityNames, withCapabilities } from "./capabilities.ts";

Deno.test("capabilities read and change by name; an unknown bit keeps its place", () => {
  assert.deepEqual(capabilityNames(0), []);
  assert.deepEqual(capabilityNames(1 | 8 | (1 << 12)), [
    "create_context",
    "manage_members",
    "bit_12",
  ]);
  const granted = withCapabilities(0, ["create_context", "manage_metadata"], []);
  assert.deepEqual(capabilityNames(granted), ["create_context", "manage_metadata"]);
  assert.deepEqual(
    capabilityNames(withCapabilities(granted, ["invite_members"], ["create_context"])),
    [
      "invite_members",
      "manage_metadata",
    ],
  );
  assert.equal(
    withCapabilities(granted, ["create_context"], ["create_context"]) & 1,
    0,
    "revoke wins",
  );
});
