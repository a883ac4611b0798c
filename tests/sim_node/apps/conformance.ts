// The core conformance manifests installed as apps, for coverage of every ABI construct. Methods
// without a hand-written body answer through the generic rule (echo, else a default of the type).

import { fail } from "../guest.ts";
import type { MethodImpl } from "../types.ts";
import { DATA, dataText } from "./data.ts";
import { type SampleApp, samplePackage } from "./sample.ts";

const methods: Record<string, MethodImpl> = {
  may_fail: ({ flag }) => flag ? fail({ kind: "Failed", data: "flag was set" }) : 7,
  view_constant: () => 42,
  create_custom_record: ({ name, value }) => ({ name, value, active: true }),
  get_status: ({ timestamp }) => ({ Active: { timestamp } }),
  get_internal_result: ({ value }) => ({ original: value, calculated: (value as number) * 2 }),
  public_with_private_helper: ({ value }) => (value as number) + 1,
  find_person: ({ name }) => ({ id: new Array(32).fill(0), name, age: 30 }),
};

/** core's abi_conformance golden manifest (40 methods, every construct). */
export const conformance: SampleApp = {
  name: "abi-conformance",
  versions: ["0.1.0"],
  build: ({ version }) => ({
    package: samplePackage("abi-conformance"),
    version,
    name: "ABI Conformance",
    abi: dataText(DATA.conformanceAbi),
    methods,
  }),
};

/** core's abi_conformance_resolved golden manifest (aliases and type resolution). */
export const conformanceResolved: SampleApp = {
  name: "abi-conformance-resolved",
  versions: ["0.1.0"],
  build: ({ version }) => ({
    package: samplePackage("abi-conformance-resolved"),
    version,
    name: "ABI Conformance (resolved)",
    abi: dataText(DATA.conformanceResolvedAbi),
  }),
};
