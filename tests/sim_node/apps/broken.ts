// Two apps whose ABI cannot be used: `broken-abi` declares a future major (`wasm-abi/2`, served by
// the route as is: the client must refuse it), `garbled-abi` embeds invalid JSON (the route answers 400).

import type { SampleApp } from "./sample.ts";
import { samplePackage } from "./sample.ts";

const ping = { ping: () => "pong" };

/** An app whose manifest has an unsupported schema major. */
export const brokenAbi: SampleApp = {
  name: "broken-abi",
  versions: ["0.1.0"],
  build: ({ version }) => ({
    package: samplePackage("broken-abi"),
    version,
    name: "Broken ABI (a deliberately broken sample)",
    abi: {
      schema_version: "wasm-abi/2",
      types: {},
      methods: [{ name: "ping", params: [], returns: { kind: "string" }, intent: "read_only" }],
      events: [],
    },
    methods: ping,
  }),
};

/** An app whose embedded ABI is not JSON at all. */
export const garbledAbi: SampleApp = {
  name: "garbled-abi",
  versions: ["0.1.0"],
  build: ({ version }) => ({
    package: samplePackage("garbled-abi"),
    version,
    name: "Garbled ABI (a deliberately broken sample)",
    abi: '{"schema_version": "wasm-abi/1", "methods": [{"name": "ping", "params": [',
    methods: ping,
  }),
};
