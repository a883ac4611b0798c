// Builds the tiny WebAssembly modules the simulated node serves as bytecode blobs: the header plus
// custom sections, one of them `calimero_abi_v1` holding the ABI JSON, as a real app's wasm carries it.

const encoder = new TextEncoder();

/** The name of the custom section that carries an app's ABI manifest. */
export const ABI_SECTION = "calimero_abi_v1";

/** Unsigned LEB128, the integer encoding of wasm section sizes. */
export function uleb128(value: number): number[] {
  const out: number[] = [];
  let rest = value >>> 0;
  do {
    let byte = rest & 0x7f;
    rest >>>= 7;
    if (rest !== 0) byte |= 0x80;
    out.push(byte);
  } while (rest !== 0);
  return out;
}

/** One custom section (id 0): LEB128 size, LEB128 name length, name, payload. */
export function customSection(name: string, payload: Uint8Array): Uint8Array {
  const nameBytes = encoder.encode(name);
  const body = [...uleb128(nameBytes.length), ...nameBytes, ...payload];
  return new Uint8Array([0, ...uleb128(body.length), ...body]);
}

/** A valid wasm module made of the header and the given custom sections, in order. */
export function wasmModule(
  sections: { name: string; payload: Uint8Array | string }[],
): Uint8Array<ArrayBuffer> {
  const parts = sections.map((s) =>
    customSection(s.name, typeof s.payload === "string" ? encoder.encode(s.payload) : s.payload)
  );
  const size = parts.reduce((n, p) => n + p.length, 8);
  const out = new Uint8Array(size);
  out.set([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  let at = 8;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Reads the payload of the first custom section named `name`; null when absent or malformed. */
export function readCustomSection(bytes: Uint8Array, name: string): Uint8Array | null {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61) return null;
  let at = 8;
  const leb = (): number | null => {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (at >= bytes.length) return null;
      const byte = bytes[at++];
      result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result >>> 0;
    }
    return null;
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    if (size === null || at + size > bytes.length) return null;
    const end = at + size;
    if (id === 0) {
      const nameLength = leb();
      if (nameLength === null || at + nameLength > end) return null;
      const sectionName = new TextDecoder().decode(bytes.subarray(at, at + nameLength));
      if (sectionName === name) return bytes.slice(at + nameLength, end);
    }
    at = end;
  }
  return null;
}
