// abi-coverage: one app whose ABI (fixtures/abi-coverage.abi.json) uses every construct of `wasm-abi/1`:
// each scalar, bytes with a fixed size, aliases (of bytes, a string and a map), lists of lists, maps of lists,
// tuples, records with nullable fields, variants with unit, record, tuple and scalar payloads, nullable
// parameters and returns, CRDT state and events. Methods without a body here answer through the generic
// rule (echo the one parameter of the return type, else a default of the type).

import { fail } from "../guest.ts";
import type { MethodImpl } from "../types.ts";
import { DATA, dataText } from "./data.ts";
import { type SampleApp, samplePackage } from "./sample.ts";

const methods: Record<string, MethodImpl> = {
  constant: () => 42,
  make_point: ({ x, y }) => ({ x, y }),
  may_fail: ({ flag }) => flag ? fail({ kind: "Failed", data: "flag was set" }) : 7,
};

/** The every-construct sample. */
export const coverage: SampleApp = {
  name: "abi-coverage",
  versions: ["0.1.0"],
  build: ({ version }) => ({
    package: samplePackage("abi-coverage"),
    version,
    name: "ABI Coverage",
    description: "Every construct of the wasm-abi/1 format, one method each.",
    abi: dataText(DATA.coverageAbi),
    methods,
  }),
};
