import assert from "assert";
import { buildMethodIndex, MAX_QUERY_WORDS, words } from "./method_index.ts";
import type { CatalogUnit } from "./catalog.ts";
import type { AbiMethod } from "./abi_format.ts";

function unit(
  pkg: string,
  methods: [string, string[], string?][],
  events: string[] = [],
): CatalogUnit {
  const toMethod = ([name, params, doc]: [string, string[], string?]): AbiMethod => ({
    name,
    params: params.map((p) => ({ name: p, type: { kind: "string" } })),
    ...(doc ? { doc } : {}),
    intent: name.startsWith("get") || name.startsWith("list") ? "read_only" : "write",
  } as AbiMethod);
  return {
    applicationId: pkg,
    package: pkg,
    displayName: pkg.split(".").at(-1)!,
    service: null,
    manifest: { methods: methods.map(toMethod), events: events.map((name) => ({ name })) },
  } as unknown as CatalogUnit;
}

const UNITS = [
  unit("com.calimero.kv-store", [
    ["init", []],
    ["set", ["key", "value"], "Stores a value under a key."],
    ["get", ["key"], "The value under a key."],
    ["remove", ["key"], "Removes a key."],
    ["entries", [], "Every key and value."],
  ], ["Inserted", "Removed"]),
  unit("com.calimero.issue-tracker", [
    ["create_issue", ["title", "body"], "Opens an issue."],
    ["close_issue", ["issue_id"], "Closes an issue."],
    ["add_comment", ["issue_id", "text"], "Comments on an issue."],
    ["list_issues", ["state"], "Lists issues, open or closed, with their assignee."],
    ["set_assignee", ["issue_id", "assignee"]],
  ], ["IssueCreated"]),
  unit("com.calimero.chat", [
    ["sendMessage", ["channel", "text"], "Posts a message to a channel."],
    ["getMessages", ["channel", "since"], "Messages of a channel."],
  ]),
];

const top = (query: string, n = 3) =>
  buildMethodIndex(UNITS).search(query, n).map((h) => `${h.unit.displayName}.${h.method.name}`);

Deno.test("words splits names of every style and folds plurals", () => {
  assert.deepEqual(words("getMessages"), ["get", "message"]);
  assert.deepEqual(words("list_issues"), ["list", "issue"]);
  assert.deepEqual(words("com.calimero.kv-store"), ["com", "calimero", "kv", "store"]);
  assert.deepEqual(words("entries"), ["entry"]);
});

Deno.test("find_methods ranks the method a person means first", () => {
  assert.equal(top("create issue")[0], "issue-tracker.create_issue");
  assert.equal(top("open a new issue")[0], "issue-tracker.create_issue");
  assert.equal(top("close_issue")[0], "issue-tracker.close_issue");
  assert.equal(top("delete key")[0], "kv-store.remove", "synonym of the name plus a parameter");
  assert.equal(top("send chat message")[0], "chat.sendMessage");
  assert.equal(top("comment")[0], "issue-tracker.add_comment");
  assert.equal(
    top("assign someone to an issue")[0],
    "issue-tracker.set_assignee",
    "the verb leads",
  );
  assert.deepEqual(top("read messages", 1), ["chat.getMessages"]);
  assert.ok(top("kv store").every((name) => name.startsWith("kv-store.")), "the app's name counts");
  assert.ok(!top("kv store", 10).includes("kv-store.init"), "init is never a match");
});

Deno.test("find_methods answers nothing for words nothing has, and filters", () => {
  assert.deepEqual(top("zebra"), []);
  assert.deepEqual(top("the of a"), [], "stop words alone match nothing");
  const onlyViews = buildMethodIndex(UNITS).search(
    "issue",
    10,
    (m) => m.method.intent === "read_only",
  );
  assert.deepEqual(onlyViews.map((h) => h.method.name), ["list_issues"]);
});

Deno.test("a long query weighs its first MAX_QUERY_WORDS words (the cost of a search is bounded by them)", () => {
  const index = buildMethodIndex(UNITS);
  const filler = Array.from({ length: MAX_QUERY_WORDS }, (_, i) => `zq${i}x`).join(" ");
  assert.deepEqual(
    index.search(`${filler} assignee`, 5),
    [],
    "a word past the bound is not weighed",
  );
  assert.equal(index.search(`assignee ${filler}`, 1)[0]?.method.name, "set_assignee");
});
