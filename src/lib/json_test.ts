import assert from "assert";
import { parseJson, stringifyJson } from "./json.ts";

Deno.test("2^63-1 survives a parse and stringify round trip with every digit", () => {
  const text = '{"big":9223372036854775807,"neg":-9223372036854775808}';
  const value = parseJson(text) as { big: unknown; neg: unknown };
  assert.equal(value.big, 9223372036854775807n);
  assert.equal(value.neg, -9223372036854775808n);
  assert.equal(stringifyJson(value), text);
});

Deno.test("safe integers, fractions and exponents stay plain numbers", () => {
  const value = parseJson("[9007199254740991,-9007199254740991,1.5,1e21,12345678901234567890.0]");
  assert.deepEqual(value, [9007199254740991, -9007199254740991, 1.5, 1e21, 12345678901234567000]);
});

Deno.test("the first unsafe integer becomes a bigint", () => {
  assert.equal(parseJson("9007199254740993"), 9007199254740993n);
});

Deno.test("nested key order is preserved both ways", () => {
  const text =
    '{"invitation":{"inviter_identity":[1,2],"group_id":[3],"expiration_timestamp":18446744073709551615,"secret_salt":[4],"invited_role":1},"inviter_signature":"ab","app_key":[5]}';
  const value = parseJson(text);
  assert.equal(stringifyJson(value), text);
  const inner = (value as { invitation: Record<string, unknown> }).invitation;
  assert.deepEqual(Object.keys(inner), [
    "inviter_identity",
    "group_id",
    "expiration_timestamp",
    "secret_salt",
    "invited_role",
  ]);
});

Deno.test("bigints anywhere in a request are written as exact digits", () => {
  assert.equal(
    stringifyJson({ a: [1n, { b: 2n ** 64n }] }),
    '{"a":[1,{"b":18446744073709551616}]}',
  );
});

Deno.test("strings that look like numbers are left alone", () => {
  assert.deepEqual(parseJson('{"n":"9223372036854775807"}'), { n: "9223372036854775807" });
});

Deno.test("undefined stringifies to null and malformed text throws", () => {
  assert.equal(stringifyJson(undefined), "null");
  assert.throws(() => parseJson("{"), SyntaxError);
});
