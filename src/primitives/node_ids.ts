// Ids as core's refusals print them, made readable. A typed refusal carries core's own message, and core writes
// the ids in it with Rust's `Debug` (crates/governance-store/src/permission_checker.rs `format!("{:?}")`; newer
// crates/server/src/admin/service.rs keeps the message whole): `ContextGroupId(Identity([186, 55, …]))`,
// `AccountId([…])`, `PublicKey(Hash("…"))`. A person cannot match 32 decimals with the id a tool showed, so each
// becomes the form the tools use: groups and accounts in hex, contexts, applications and keys in base58.

import { encodeBase58 } from "./base58.ts";

/** The names whose ids the tools write in hex; every other id is written in base58, as the node's JSON does. */
const HEX_NAMES = new Set(["ContextGroupId", "AccountId", "NamespaceId", "GroupId"]);

/** `Name(` optionally `Inner(`, then 32 decimal bytes, then the closing parentheses. */
const BYTE_ARRAY_ID =
  /\b([A-Z][A-Za-z]*Id|PublicKey|Identity|Hash)\((?:([A-Z][A-Za-z]*)\()?\[((?:\s*\d{1,3}\s*,){31}\s*\d{1,3}\s*)\]\)(\))?/g;

/** `Name(Hash("base58"))` or `Hash("base58")`: the id is already readable, only its wrapping goes. */
const HASH_ID = /\b(?:[A-Z][A-Za-z]*\()?Hash\("([1-9A-HJ-NP-Za-km-z]{32,44})"\)\)?/g;

/** Replaces every id core printed with `Debug` in `text` by the id itself; other text is left as it is. */
export function readableIds(text: string): string {
  if (!text.includes("(")) return text;
  return text
    .replace(
      BYTE_ARRAY_ID,
      (whole, name: string, inner: string | undefined, list: string, close) => {
        // A wrapper's closing parenthesis belongs to it only when it opened one.
        if (inner !== undefined && close === undefined) return whole;
        const numbers = list.split(",").map((n) => Number(n.trim()));
        if (numbers.some((n) => n > 255)) return whole;
        const bytes = Uint8Array.from(numbers);
        const tail = inner === undefined && close !== undefined ? ")" : "";
        return (HEX_NAMES.has(name) ? toHex(bytes) : encodeBase58(bytes)) + tail;
      },
    )
    .replace(HASH_ID, (_whole, id: string) => id);
}

function toHex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}
