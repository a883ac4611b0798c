// Deterministic ids for the simulated node: every id is a hash of a descriptive seed, so a test
// that creates things in the same order always sees the same ids, and two seeds never collide.

import { createHash, createHmac } from "node:crypto";
import { base58Decode, base58Encode } from "./base58.ts";

/** SHA-256 of a string or bytes, as raw bytes. */
export function sha256(input: string | Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(input).digest());
}

/** SHA-256 as lowercase hex. */
export function sha256Hex(input: string | Uint8Array): string {
  return createHash("sha256").update(input).digest("hex");
}

/** HMAC-SHA256 as raw bytes (used to sign the simulated JWTs). */
export function hmacSha256(key: string, data: string): Uint8Array {
  return new Uint8Array(createHmac("sha256", key).update(data).digest());
}

/** A base58 id of 32 bytes (application, context, blob ids, public keys) derived from a seed. */
export function base58Id(seed: string): string {
  return base58Encode(sha256(seed));
}

/** A 64-hex id (group, namespace, account ids) derived from a seed. */
export function hexId(seed: string): string {
  return sha256Hex(seed);
}

/** Whether `text` is base58 that decodes to exactly 32 bytes: the node's id form. */
export function isBase58Id(text: string): boolean {
  return base58Decode(text)?.length === 32;
}

/** Whether `text` is 64 hex digits: the node's group, namespace and account id form. */
export function isHexId(text: string): boolean {
  return /^[0-9a-fA-F]{64}$/.test(text);
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  return bytes.toHex();
}

/** Bytes of a hex string (caller checks the form first). */
export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** A bundle signer id in the `did:key:z…` form, derived from a seed. */
export function didKey(seed: string): string {
  return `did:key:z6Mk${base58Encode(sha256(`signer:${seed}`)).slice(0, 44)}`;
}

/** core crates/store/blobs/src/lib.rs. */
const CHUNK = 1 << 20;

/**
 * A blob's id: sha256 of the concatenated sha256 of each 1 MiB chunk; no bytes make no chunk, so the empty blob's id
 * is sha256 of nothing (crates/store/blobs/src/lib.rs, :419-421).
 */
export function blobIdOf(bytes: Uint8Array): string {
  const ids: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK) {
    ids.push(sha256(bytes.subarray(at, at + CHUNK)));
  }
  const joined = new Uint8Array(ids.length * 32);
  ids.forEach((id, i) => joined.set(id, i * 32));
  return base58Encode(sha256(joined));
}
