import assert from "assert";
import { ERROR_CHARS, fitError, fitItems, headOf, resultChars } from "./budget.ts";

Deno.test("fitItems keeps the longest prefix that fits and says where the next page starts", () => {
  const items = Array.from({ length: 100 }, (_, i) => ({ id: `item-${i}`.padEnd(50, ".") }));
  const page = fitItems(items, 1_000, 40);
  assert.ok(JSON.stringify(page.items).length <= 1_000);
  assert.ok(JSON.stringify(items.slice(0, page.items.length + 1)).length > 1_000);
  assert.equal(page.next_offset, 40 + page.items.length);
  // The whole list fits: no next offset, unless the caller knows more follow.
  assert.equal(fitItems(items.slice(0, 3), 1_000).next_offset, undefined);
  assert.equal(fitItems(items.slice(0, 3), 1_000, 0, true).next_offset, 3);
  // One item over the budget still comes back alone, so paging always moves on.
  assert.equal(fitItems([{ big: "x".repeat(5_000) }, { small: 1 }], 1_000).items.length, 1);
});

Deno.test("headOf never ends inside a surrogate pair", () => {
  const text = "ab😀cd";
  assert.equal(headOf(text, 3), "ab");
  assert.equal(headOf(text, 4), "ab😀");
  assert.equal(headOf(text, 100), text);
});

Deno.test("fitError keeps an error's text under the hosts' cut and says it was cut", () => {
  const result = fitError({
    content: [{ type: "text", text: `Error: ${"y".repeat(50_000)}` }],
    isError: true,
  });
  assert.ok(resultChars(result) < ERROR_CHARS, `${resultChars(result)}`);
  assert.equal(result.isError, true);
  assert.match((result.content[0] as { text: string }).text, /cut: 50,007 characters in all/);
  const small = { content: [{ type: "text" as const, text: "Error: no" }], isError: true };
  assert.equal(fitError(small), small);
});
