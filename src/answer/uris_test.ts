import assert from "assert";
import fc from "fast-check";
import { UriTemplate } from "@modelcontextprotocol/server";
import { EVENTS_TEMPLATE, eventsUri, eventsUriContext, GUIDE_TEMPLATE, guideUri } from "./uris.ts";

const GUIDES: { id: string; version: string | null; uri: string }[] = [
  { id: "5HnQ3rVX", version: "0.3.1", uri: "calimero://apps/5HnQ3rVX/0.3.1/guide" },
  { id: "5HnQ3rVX", version: null, uri: "calimero://apps/5HnQ3rVX/unversioned/guide" },
  { id: "5HnQ3rVX", version: "", uri: "calimero://apps/5HnQ3rVX/unversioned/guide" },
  { id: "5HnQ3rVX", version: "1.0.0+b/1", uri: "calimero://apps/5HnQ3rVX/1.0.0%2Bb%2F1/guide" },
];

for (const { id, version, uri } of GUIDES) {
  Deno.test(`the guide of ${id} at version ${JSON.stringify(version)} is ${uri}`, () => {
    assert.equal(guideUri(id, version), uri);
  });
}

Deno.test("guide URIs are what the SDK's template expands to and matches", () => {
  const template = new UriTemplate(GUIDE_TEMPLATE);
  fc.assert(fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (id, version) => {
    const uri = guideUri(id, version);
    assert.equal(template.expand({ applicationId: id, version }), uri);
    assert.notEqual(template.match(uri), null);
  }));
});

Deno.test("an events URI names its context; other URIs name none", () => {
  const id = "4Xq3rVXwJ8tbZ5cZqL9fNmNn2rV6Kp1aGx7yHc8dEe9f";
  assert.equal(eventsUri(id), `calimero://contexts/${id}/events`);
  assert.deepEqual(new UriTemplate(EVENTS_TEMPLATE).match(eventsUri(id)), { contextId: id });
  assert.equal(eventsUriContext(eventsUri(id)), id);
  for (
    const other of [
      "calimero://contexts/abc/events",
      `calimero://contexts/${id}/events/`,
      `calimero://contexts/${id}0OIl/events`,
      guideUri(id, "1.0"),
    ]
  ) assert.equal(eventsUriContext(other), null);
});
