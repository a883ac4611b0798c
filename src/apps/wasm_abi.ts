// Reads an app's ABI from its WebAssembly bytecode: the JSON in the custom section `calimero_abi_v1`.
// A small, bounded walk of the section table (the fallback for nodes without the ABI
// route): it never reads past the buffer and refuses anything that does not add up.

/** The custom section that carries a Calimero app's `wasm-abi/1` manifest. */
export const ABI_SECTION_NAME = "calimero_abi_v1";

const MAGIC = [0x00, 0x61, 0x73, 0x6d];
const VERSION = [0x01, 0x00, 0x00, 0x00];
/** Longest custom section name looked at; real names are short and ours has 15 bytes. */
const MAX_NAME_BYTES = 1024;

/** A blob that is not a readable WebAssembly module, or whose ABI section is not JSON. */
export class WasmFormatError extends Error {
  override name = "WasmFormatError";
}

function hexBytes(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(" ");
}

/** Reads an unsigned LEB128 u32 at `offset`, before `limit`; returns it and the offset after it. */
function readU32(bytes: Uint8Array, offset: number, limit: number, what: string): [number, number] {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    const at = offset + i;
    if (at >= limit) {
      throw new WasmFormatError(
        `Truncated WebAssembly module: the ${what} at byte ${offset} runs past the end of ` +
          `${limit === bytes.length ? "the module" : "its section"}. The blob may be incomplete; ` +
          `download it again.`,
      );
    }
    const byte = bytes[at];
    if (i === 4 && byte > 0x0f) {
      throw new WasmFormatError(
        `Malformed WebAssembly module: the ${what} at byte ${offset} exceeds 32 bits.`,
      );
    }
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return [value, at + 1];
  }
  throw new WasmFormatError(
    `Malformed WebAssembly module: the ${what} at byte ${offset} is longer than 5 bytes.`,
  );
}

function checkHeader(bytes: Uint8Array): void {
  if (bytes.length < 8 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new WasmFormatError(
      `Not a WebAssembly module: it starts with ${hexBytes(bytes.subarray(0, 4)) || "nothing"}, ` +
        `expected 00 61 73 6d ("\\0asm"). Check that the blob is the app's bytecode.`,
    );
  }
  if (VERSION.some((b, i) => bytes[4 + i] !== b)) {
    throw new WasmFormatError(
      `Unsupported WebAssembly version (bytes ${
        hexBytes(bytes.subarray(4, 8))
      }); expected version 1.`,
    );
  }
}

function parsePayload(payload: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(payload);
  } catch {
    throw new WasmFormatError(`The ${ABI_SECTION_NAME} section is not valid UTF-8.`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new WasmFormatError(
      `The ${ABI_SECTION_NAME} section is not valid JSON (${(error as Error).message}).`,
    );
  }
}

/**
 * Returns the JSON-parsed payload of the module's `calimero_abi_v1` custom section (the first, if
 * several), or null when the module has none. Throws `WasmFormatError` for a buffer that is not a
 * version-1 module, a truncated or inconsistent section table, or a payload that is not JSON.
 */
export function readAbiCustomSection(bytes: Uint8Array): unknown | null {
  checkHeader(bytes);
  const decoder = new TextDecoder("utf-8", { fatal: false });
  let offset = 8;
  while (offset < bytes.length) {
    const id = bytes[offset];
    const [size, start] = readU32(bytes, offset + 1, bytes.length, `size of section ${id}`);
    const end = start + size;
    if (end > bytes.length) {
      throw new WasmFormatError(
        `Truncated WebAssembly module: section ${id} at byte ${offset} declares ${size} bytes but ` +
          `only ${bytes.length - start} remain. The blob is incomplete; download it again.`,
      );
    }
    if (id === 0) {
      const [nameLength, nameStart] = readU32(bytes, start, end, "custom section name length");
      if (nameStart + nameLength > end) {
        throw new WasmFormatError(
          `Malformed WebAssembly module: the custom section at byte ${offset} has a name longer ` +
            `than the section.`,
        );
      }
      if (nameLength <= MAX_NAME_BYTES) {
        const name = decoder.decode(bytes.subarray(nameStart, nameStart + nameLength));
        if (name === ABI_SECTION_NAME) {
          return parsePayload(bytes.subarray(nameStart + nameLength, end));
        }
      }
    }
    offset = end;
  }
  return null;
}
