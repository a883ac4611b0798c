import assert from "assert";
import { encodeBase58 } from "./base58.ts";
import { readableIds } from "./node_ids.ts";

const bytes = Array.from({ length: 32 }, (_, i) => (i * 37 + 186) % 256);
const list = bytes.join(", ");
const hex = bytes.map((b) => b.toString(16).padStart(2, "0")).join("");
const b58 = encodeBase58(Uint8Array.from(bytes));

Deno.test("a group and an account printed with Debug become the hex the tools show", () => {
  assert.equal(
    readableIds(
      `identity AccountId([${list}]) is not a member of group ContextGroupId(Identity([${list}]))`,
    ),
    `identity ${hex} is not a member of group ${hex}`,
  );
  assert.equal(
    readableIds(`cannot demote the last admin of group 'ContextGroupId([${list}])'`),
    `cannot demote the last admin of group '${hex}'`,
  );
});

Deno.test("a key or a context id printed with Debug becomes its base58", () => {
  assert.equal(
    readableIds(`identity PublicKey(Hash("${b58}")) is not an admin`),
    `identity ${b58} is not an admin`,
  );
  assert.equal(readableIds(`context ContextId([${list}]) not found`), `context ${b58} not found`);
});

Deno.test("text that only looks like an id is left as it is", () => {
  for (
    const text of [
      "Internal server error",
      "AccountId([1, 2, 3])",
      `AccountId([${bytes.slice(0, 31).join(", ")}, 999])`,
      "values (1, 2)",
    ]
  ) {
    assert.equal(readableIds(text), text);
  }
});
