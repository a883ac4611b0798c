import assert from "assert";
import { ABI_SECTION, readCustomSection, uleb128, wasmModule } from "./wasm.ts";

Deno.test("uleb128 encodes sizes across byte boundaries", () => {
  const cases: [number, number[]][] = [
    [0, [0]],
    [127, [0x7f]],
    [128, [0x80, 0x01]],
    [300, [0xac, 0x02]],
    [16384, [0x80, 0x80, 0x01]],
  ];
  for (const [value, bytes] of cases) assert.deepEqual(uleb128(value), bytes, `${value}`);
});

Deno.test("a module with an ABI custom section is valid wasm and gives the ABI back", () => {
  const abi = JSON.stringify({ schema_version: "wasm-abi/1", pad: "x".repeat(500) });
  const module = wasmModule([{ name: "other", payload: "zz" }, {
    name: ABI_SECTION,
    payload: abi,
  }]);
  assert.equal(WebAssembly.validate(module), true);
  assert.deepEqual([...module.slice(0, 8)], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  const payload = readCustomSection(module, ABI_SECTION);
  assert.equal(new TextDecoder().decode(payload!), abi);
  assert.equal(readCustomSection(module, "missing"), null);
});

Deno.test("a truncated module yields no section instead of throwing", () => {
  const module = wasmModule([{ name: ABI_SECTION, payload: "{}" }]);
  assert.equal(readCustomSection(module.slice(0, module.length - 1), ABI_SECTION), null);
});
