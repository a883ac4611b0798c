// Lossless JSON for node traffic: integers beyond 2^53 travel as exact `bigint`s in both directions.
// Key order survives a round trip (signed invitations depend on it), except that JavaScript objects
// always list integer-like keys ("0", "1", …) first — no node payload we sign uses such keys.

/** The reviver context V8 passes as a third argument (JSON.parse source text access). */
interface ReviverContext {
  source?: string;
}

/** The parts of the ES2025 JSON API that the bundled TypeScript lib does not declare yet. */
interface JsonWithSource {
  parse(
    text: string,
    reviver: (key: string, value: unknown, context: ReviverContext) => unknown,
  ): unknown;
  rawJSON(text: string): unknown;
}

const json = JSON as unknown as JsonWithSource;
const INTEGER_LITERAL = /^-?(0|[1-9][0-9]*)$/;
const LONG_DIGITS = /[0-9]{16}/;

/**
 * Parses JSON text, turning integer literals outside the safe range (±(2^53 − 1)) into `bigint`
 * so no digit is lost; every other value parses as `JSON.parse` would. Throws `SyntaxError` on
 * malformed text.
 */
export function parseJson(text: string): unknown {
  // An integer above 2^53 needs at least 16 digits: without such a run, plain JSON.parse is exact and ~30× faster.
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return json.parse(text, (_key, value, context) => {
    if (typeof value !== "number" || Number.isSafeInteger(value)) return value;
    const source = context?.source;
    if (source !== undefined && INTEGER_LITERAL.test(source)) return BigInt(source);
    return value;
  });
}

/**
 * Serialises a value to compact JSON, writing each `bigint` as its exact digits, so requests
 * carry big integers unchanged. Keys keep their insertion order. A top-level `undefined` (or a
 * function or symbol) becomes `null` so the result is always valid JSON text.
 */
export function stringifyJson(value: unknown): string {
  const text = JSON.stringify(
    value,
    (_key, item) => typeof item === "bigint" ? json.rawJSON(item.toString()) : item,
  );
  return text ?? "null";
}

/** Whether a parsed JSON value is an object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
