// Lossless JSON for the simulated node: integers beyond 2^53 parse to bigint and are written back
// with their exact digits, as a Rust node (serde_json with u64/i64) would read and write them.

type RawJson = (text: string) => unknown;
type SourceContext = { source?: string };
const rawJSON = (JSON as unknown as { rawJSON: RawJson }).rawJSON;

/** Parses JSON; integers that a double cannot hold exactly become bigint. Throws SyntaxError. */
export function parseLossless(text: string): unknown {
  return JSON.parse(
    text,
    function (_key: string, value: unknown, context?: SourceContext) {
      if (
        typeof value === "number" && !Number.isSafeInteger(value) && context?.source &&
        /^-?\d+$/.test(context.source)
      ) {
        return BigInt(context.source);
      }
      return value;
    } as (key: string, value: unknown) => unknown,
  );
}

/** Serialises JSON, writing bigint values as exact integer digits. */
export function stringifyExact(value: unknown, space?: number): string {
  return JSON.stringify(
    value,
    (_key, v) => typeof v === "bigint" ? rawJSON(v.toString()) : v,
    space,
  ) ?? "null";
}

/** Bytes of the UTF-8 JSON of a value, as the node's `metadata` and `initializationParams`. */
export function jsonBytes(value: unknown): number[] {
  return [...new TextEncoder().encode(stringifyExact(value))];
}
