import assert from "assert";
import type { Application } from "../mero/mod.ts";
import {
  AppResolutionError,
  appUnits,
  appVersion,
  chooseService,
  displayName,
  metadataName,
  resolveApplication,
  sortApps,
} from "./resolve.ts";

const bytes = (value: unknown) => [...new TextEncoder().encode(JSON.stringify(value))];

function app(
  id: string,
  fields: Partial<Application> & { name?: string } = {},
): Application {
  const { name, ...rest } = fields;
  return {
    id,
    blob: { bytecode: `${id}-code`, compiled: `${id}-compiled` },
    size: 1,
    source: "file:///app.mpk",
    metadata: name === undefined ? [] : bytes({ name }),
    ...rest,
  };
}

const KV = app("IdKv", { package: "com.calimero.kv-store", name: "KV Store", signer_id: "did:a" });
const CHAT = app("IdChat", { package: "network.calimero.mero-chat", signer_id: "did:a" });
const CHAT2 = app("IdChat2", { package: "network.calimero.mero-chat-v2", signer_id: "did:a" });
const TRACKER = app("IdTrack", { package: "com.x.tracker", name: "Issues", signer_id: "did:a" });
const NOPKG = app("IdBare", { name: "Bare Thing" });
const APPS = [KV, CHAT, CHAT2, TRACKER, NOPKG];

const resolves: { name: string; apps: Application[]; input: string; id: string }[] = [
  { name: "exact id", apps: APPS, input: "IdChat", id: "IdChat" },
  { name: "exact package", apps: APPS, input: "network.calimero.mero-chat", id: "IdChat" },
  { name: "trailing segment", apps: APPS, input: "kv-store", id: "IdKv" },
  { name: "trailing segment, other case", apps: APPS, input: "MERO-CHAT", id: "IdChat" },
  { name: "segment only as a whole value", apps: APPS, input: "mero-chat-v2", id: "IdChat2" },
  { name: "display name", apps: APPS, input: "kv store", id: "IdKv" },
  {
    name: "display name of an app without a package",
    apps: APPS,
    input: "bare thing",
    id: "IdBare",
  },
  { name: "surrounding spaces are ignored", apps: APPS, input: "  tracker ", id: "IdTrack" },
  {
    name: "an id beats another app's package",
    apps: [app("com.a.x", { package: "com.b.y" }), app("Other", { package: "com.a.x" })],
    input: "com.a.x",
    id: "com.a.x",
  },
  {
    name: "an exact package beats another app's segment",
    apps: [app("A", { package: "chat" }), app("B", { package: "com.b.chat" })],
    input: "chat",
    id: "A",
  },
  {
    name: "the package tier is case-sensitive, so other case falls to short names",
    apps: [app("A", { package: "Chat" }), app("B", { package: "com.b.other" })],
    input: "chat",
    id: "A",
  },
];

for (const c of resolves) {
  Deno.test(`resolution picks the app by ${c.name}`, () => {
    assert.equal(resolveApplication(c.apps, c.input).id, c.id);
  });
}

const failures: {
  name: string;
  apps: Application[];
  input: string;
  kind: AppResolutionError["kind"];
  says: string[];
  ids?: string[];
}[] = [
  {
    name: "a prefix of a segment is not a match",
    apps: APPS,
    input: "mero",
    kind: "not-found",
    says: [
      `"mero"`,
      'com.calimero.kv-store ("KV Store")',
      'IdBare ("Bare Thing")',
      "network.calimero.mero-chat-v2",
    ],
  },
  {
    name: "a segment that only extends another is not a match",
    apps: [CHAT2],
    input: "mero-chat",
    kind: "not-found",
    says: ["network.calimero.mero-chat-v2"],
  },
  {
    name: "a suffix of a segment is not a match",
    apps: [app("G", { package: "com.x.groupchat", name: "Group Chat" })],
    input: "chat",
    kind: "not-found",
    says: [`com.x.groupchat ("Group Chat")`],
  },
  {
    name: "nothing installed",
    apps: [],
    input: "chat",
    kind: "not-found",
    says: ["no application is installed", "install_application"],
  },
  {
    name: "an empty name",
    apps: APPS,
    input: "  ",
    kind: "not-found",
    says: ["Installed:"],
  },
  {
    name: "one segment shared by two packages",
    apps: [app("A", { package: "com.a.chat" }), app("B", { package: "com.b.chat" }), KV],
    input: "chat",
    kind: "ambiguous",
    says: ["com.a.chat, com.b.chat", "full package name or the application id"],
    ids: ["A", "B"],
  },
  {
    name: "one app's segment that is another app's display name",
    apps: [app("A", { package: "com.a.notes" }), app("B", { package: "com.b.pad", name: "Notes" })],
    input: "notes",
    kind: "ambiguous",
    says: ["com.a.notes, com.b.pad"],
    ids: ["A", "B"],
  },
  {
    name: "one package from two signers",
    apps: [
      app("Z2", { package: "com.a.chat", signer_id: "did:key:zTwo" }),
      app("Z1", { package: "com.a.chat", signer_id: "did:key:zOne" }),
    ],
    input: "com.a.chat",
    kind: "multi-signer",
    says: ["Z1 (signer did:key:zOne), Z2 (signer did:key:zTwo)", "application id"],
    ids: ["Z1", "Z2"],
  },
  {
    name: "one package from two signers found by short name",
    apps: [
      app("Z1", { package: "com.a.chat", signer_id: "did:key:zOne" }),
      app("Z2", { package: "com.a.chat" }),
    ],
    input: "CHAT",
    kind: "multi-signer",
    says: ["Z2 (signer unknown)"],
    ids: ["Z1", "Z2"],
  },
  {
    name: "two signers of one package and another package",
    apps: [
      app("Z1", { package: "com.a.chat" }),
      app("Z2", { package: "com.a.chat" }),
      app("Y", { package: "com.b.chat" }),
    ],
    input: "chat",
    kind: "ambiguous",
    says: ["com.a.chat (ids Z1, Z2), com.b.chat"],
    ids: ["Z1", "Z2", "Y"],
  },
];

for (const c of failures) {
  Deno.test(`resolution refuses ${c.name} (${c.kind})`, () => {
    assert.throws(() => resolveApplication(c.apps, c.input), (error: unknown) => {
      assert.ok(error instanceof AppResolutionError);
      assert.equal(error.kind, c.kind);
      for (const text of c.says) assert.ok(error.message.includes(text), error.message);
      if (c.ids) assert.deepEqual(error.candidates.map((a) => a.id), c.ids);
      return true;
    });
  });
}

Deno.test("a long input is cut in the message", () => {
  assert.throws(() => resolveApplication([], "x".repeat(500)), (error: Error) => {
    assert.ok(error.message.length < 300, error.message);
    return true;
  });
});

Deno.test("units are one per service sorted by code units, else one with the app's bytecode", () => {
  const multi = app("M", {
    services: {
      "b": { bytecode: "code-b", compiled: "c" },
      "B": { bytecode: "code-B", compiled: "c" },
      "a": { bytecode: "code-a", compiled: "c" },
    },
  });
  assert.deepEqual(appUnits(multi), [
    { service: "B", bytecodeBlobId: "code-B" },
    { service: "a", bytecodeBlobId: "code-a" },
    { service: "b", bytecodeBlobId: "code-b" },
  ]);
  assert.deepEqual(appUnits(KV), [{ service: null, bytecodeBlobId: "IdKv-code" }]);
  assert.deepEqual(appUnits(app("E", { services: {} })), [
    { service: null, bytecodeBlobId: "E-code" },
  ]);
});

Deno.test("version and display names fall back when the record lacks them", () => {
  assert.equal(appVersion(app("A", { version: "1.2.0" })), "1.2.0");
  assert.equal(appVersion(app("A", { version: "" })), null);
  assert.equal(appVersion(app("A")), null);
  assert.equal(displayName(KV), "KV Store");
  assert.equal(displayName(CHAT), "network.calimero.mero-chat");
  assert.equal(displayName(app("Bare")), "Bare");
  assert.equal(metadataName(CHAT), null);
  assert.equal(metadataName(app("A", { metadata: [0xff, 0xfe] })), null);
  assert.equal(metadataName(app("A", { metadata: bytes({ name: 7 }) })), null);
});

Deno.test("apps sort by package or id, then id, by code units", () => {
  const apps = [app("b", { package: "a.x" }), app("Z"), app("a", { package: "a.x" })];
  assert.deepEqual(sortApps(apps).map((a) => a.id), ["Z", "a", "b"]);
});

Deno.test("chooseService: the wanted service, the only one, none; several unwanted or an unknown one fail", () => {
  const blob = { bytecode: "x", compiled: "y" };
  const bare = app("Bare", { package: "com.a.bare" });
  const one = app("One", { package: "com.a.one", services: { chat: blob } });
  const two = app("Two", { package: "com.a.two", services: { chat: blob, files: blob } });
  assert.equal(chooseService(bare, null), null);
  assert.equal(chooseService(one, null), "chat");
  assert.equal(chooseService(two, "files"), "files");
  assert.throws(
    () => chooseService(two, null),
    /^Error: com\.a\.two has several services: chat, files\. Pass service to choose one\.$/,
  );
  assert.throws(
    () => chooseService(two, "mail"),
    /no service "mail"\. Its services: chat, files\./,
  );
  assert.throws(
    () => chooseService(bare, "chat"),
    /com\.a\.bare has no services; leave service out/,
  );
});
