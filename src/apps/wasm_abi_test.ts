import assert from "assert";
import fc from "fast-check";
import { ABI_SECTION_NAME, readAbiCustomSection, WasmFormatError } from "./wasm_abi.ts";

const encoder = new TextEncoder();
const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

function leb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

function section(id: number, body: number[]): number[] {
  return [id, ...leb(body.length), ...body];
}

function custom(name: string, payload: Uint8Array | string): number[] {
  const nameBytes = [...encoder.encode(name)];
  const data = typeof payload === "string" ? encoder.encode(payload) : payload;
  return section(0, [...leb(nameBytes.length), ...nameBytes, ...data]);
}

/** A type section with one `() -> ()` function type: real content before the custom sections. */
const TYPE_SECTION = section(1, [0x01, 0x60, 0x00, 0x00]);

function wasm(...sections: number[][]): Uint8Array<ArrayBuffer> {
  return new Uint8Array([...HEADER, ...sections.flat()]);
}

const ABI = {
  schema_version: "wasm-abi/1",
  types: {},
  methods: [{ name: "get", params: [{ name: "key", type: { kind: "string" } }] }],
  events: [],
  note: "é and ✓ survive",
};

Deno.test("the ABI custom section is found among other sections and parsed", () => {
  const module = wasm(
    TYPE_SECTION,
    custom("name", "\x00\x01x"),
    custom(ABI_SECTION_NAME, JSON.stringify(ABI)),
    custom("producers", "{}"),
  );
  assert.ok(WebAssembly.validate(module), "the hand-built module is valid wasm");
  assert.deepEqual(readAbiCustomSection(module), ABI);
});

Deno.test("large sections with multi-byte sizes are read exactly", () => {
  const big = { ...ABI, padding: "x".repeat(70_000) };
  const module = wasm(
    custom("filler", new Uint8Array(20_000)),
    custom(ABI_SECTION_NAME, JSON.stringify(big)),
  );
  assert.ok(WebAssembly.validate(module));
  assert.deepEqual(readAbiCustomSection(module), big);
});

Deno.test("the first of two ABI sections wins", () => {
  const module = wasm(custom(ABI_SECTION_NAME, "1"), custom(ABI_SECTION_NAME, "2"));
  assert.equal(readAbiCustomSection(module), 1);
});

Deno.test("a module without the ABI section gives null", () => {
  const cases: [string, Uint8Array][] = [
    ["header only", wasm()],
    ["other sections", wasm(TYPE_SECTION, custom("name", "x"))],
    ["similar name", wasm(custom(`${ABI_SECTION_NAME}x`, "{}"), custom("calimero_abi_v2", "{}"))],
    ["over-long name", wasm(custom("n".repeat(5000), "{}"))],
  ];
  for (const [name, module] of cases) assert.equal(readAbiCustomSection(module), null, name);
});

Deno.test("broken modules are refused with a message that says what is wrong", () => {
  const cases: [string, Uint8Array, string][] = [
    ["empty", new Uint8Array(), "Not a WebAssembly module: it starts with nothing"],
    ["magic only", new Uint8Array(HEADER.slice(0, 4)), "Not a WebAssembly module"],
    ["ELF", new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 1, 1, 1, 0]), "starts with 7f 45 4c 46"],
    ["text", encoder.encode('{"schema_version":"wasm-abi/1"}'), "Not a WebAssembly module"],
    [
      "version 2",
      new Uint8Array([...HEADER.slice(0, 4), 2, 0, 0, 0]),
      "Unsupported WebAssembly version",
    ],
    [
      "size cut off",
      wasm([1, 0x80]),
      "size of section 1 at byte 9 runs past the end of the module",
    ],
    [
      "size past the end",
      wasm([1, 10, 0, 0]),
      "section 1 at byte 8 declares 10 bytes but only 2 remain",
    ],
    ["LEB over 32 bits", wasm([0, 0xff, 0xff, 0xff, 0xff, 0x7f]), "exceeds 32 bits"],
    [
      "name length cut off",
      wasm([0, 1, 0x80], TYPE_SECTION),
      "custom section name length at byte 10 runs past the end of its section",
    ],
    ["name past section", wasm([0, 2, 5, 0x61]), "has a name longer than the section"],
    [
      "payload not JSON",
      wasm(custom(ABI_SECTION_NAME, "{oops")),
      `The ${ABI_SECTION_NAME} section is not valid JSON`,
    ],
    [
      "payload not UTF-8",
      wasm(custom(ABI_SECTION_NAME, new Uint8Array([0x7b, 0xff]))),
      "not valid UTF-8",
    ],
  ];
  for (const [name, module, message] of cases) {
    assert.throws(() => readAbiCustomSection(module), (e: Error) => {
      assert.ok(e instanceof WasmFormatError, `${name}: ${e}`);
      assert.ok(e.message.includes(message), `${name}: ${e.message}\n  should include: ${message}`);
      return true;
    });
  }
});

Deno.test("every truncation of a module ends in null, the ABI or a WasmFormatError", () => {
  const module = wasm(
    TYPE_SECTION,
    custom("name", "abc"),
    custom(ABI_SECTION_NAME, JSON.stringify(ABI)),
  );
  for (let length = 0; length <= module.length; length++) {
    try {
      const result = readAbiCustomSection(module.subarray(0, length));
      assert.ok(result === null || length === module.length, `length ${length} gave a value`);
    } catch (error) {
      assert.ok(error instanceof WasmFormatError, `length ${length}: ${error}`);
    }
  }
});

Deno.test("random bytes after the header never escape as anything but WasmFormatError", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), (tail) => {
      try {
        readAbiCustomSection(new Uint8Array([...HEADER, ...tail]));
      } catch (error) {
        assert.ok(error instanceof WasmFormatError, String(error));
      }
    }),
    { numRuns: 2000 },
  );
});
