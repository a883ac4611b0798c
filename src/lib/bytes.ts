// Joining byte chunks read from a stream or a file into one array, without a copy when there is one chunk.

/** The chunks as one array; `size` is their total length when the caller already counted it. */
export function concatBytes(
  parts: readonly Uint8Array[],
  size = parts.reduce((total, part) => total + part.length, 0),
): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
