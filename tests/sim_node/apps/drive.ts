// mero-drive-docs: a multi-service app whose services (`registry` and `docs`) come from its bundle manifest
// (fixtures/mero-drive-docs.manifest.json), with a small ABI for each written here.

import { fail } from "../guest.ts";
import { sha256Hex } from "../ids.ts";
import type { CallEnv, MethodImpl } from "../types.ts";
import { DATA, dataText } from "./data.ts";
import { type SampleApp, samplePackage } from "./sample.ts";

const str = { kind: "string" };
const unit = { kind: "unit" };

/** Methods in canonical order, as `cargo mero build` emits them and core's ABI validator wants them. */
const canonical = <T extends { methods: { name: string }[] }>(abi: T): T => {
  abi.methods.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return abi;
};

const registryAbi = canonical({
  schema_version: "wasm-abi/1",
  types: {
    DocEntry: { kind: "record", fields: [{ name: "id", type: str }, { name: "title", type: str }] },
  },
  methods: [
    { name: "init", params: [], returns: unit },
    {
      name: "register_doc",
      doc: "Registers a document and returns its id.",
      params: [{ name: "title", type: str }],
      returns: str,
      intent: "mutating",
    },
    {
      name: "list_docs",
      params: [],
      returns: { kind: "list", items: { $ref: "DocEntry" } },
      intent: "read_only",
    },
    {
      name: "remove_doc",
      params: [{ name: "id", type: str }],
      returns: { kind: "bool" },
      intent: "mutating",
      destructive: true,
    },
  ],
  events: [],
});

const docsAbi = canonical({
  schema_version: "wasm-abi/1.1",
  types: {},
  methods: [
    { name: "init", params: [], returns: unit },
    {
      name: "write",
      params: [{ name: "doc_id", type: str }, { name: "text", type: str }],
      returns: unit,
      intent: "mutating",
    },
    {
      name: "read",
      params: [{ name: "doc_id", type: str }],
      returns: str,
      returns_nullable: true,
      intent: "read_only",
    },
    {
      name: "word_count",
      params: [{ name: "doc_id", type: str }],
      returns: { kind: "u32" },
      intent: "read_only",
    },
  ],
  events: [],
});

function docs(env: CallEnv): Map<string, string> {
  env.state.docs ??= new Map<string, string>();
  return env.state.docs as Map<string, string>;
}

const registryMethods: Record<string, MethodImpl> = {
  init: () => null,
  register_doc: ({ title }, env) => {
    const id = `doc-${sha256Hex(`${env.contextId}:${docs(env).size}:${title}`).slice(0, 12)}`;
    docs(env).set(id, title as string);
    return id;
  },
  list_docs: (_args, env) => [...docs(env)].map(([id, title]) => ({ id, title })),
  remove_doc: ({ id }, env) => docs(env).delete(id as string),
};

const docsMethods: Record<string, MethodImpl> = {
  init: () => null,
  write: ({ doc_id, text }, env) => {
    docs(env).set(doc_id as string, text as string);
    return null;
  },
  read: ({ doc_id }, env) => docs(env).get(doc_id as string) ?? null,
  word_count: ({ doc_id }, env) => {
    const text = docs(env).get(doc_id as string) ?? fail(`Document not found: ${doc_id}`);
    return text.split(/\s+/).filter(Boolean).length;
  },
};

interface DriveManifest {
  appVersion: string;
  metadata: { name: string; description: string };
  services: { name: string }[];
}

/** The multi-service sample: one unit per service name in its manifest. */
export const drive: SampleApp = {
  name: "mero-drive-docs",
  versions: ["9.0.0"],
  build: ({ version }) => {
    const manifest = JSON.parse(dataText(DATA.driveManifest)) as DriveManifest;
    const units: Record<string, { abi: unknown; methods: Record<string, MethodImpl> }> = {
      registry: { abi: registryAbi, methods: registryMethods },
      docs: { abi: docsAbi, methods: docsMethods },
    };
    return {
      package: samplePackage("mero-drive-docs"),
      version,
      name: manifest.metadata.name,
      description: manifest.metadata.description,
      services: Object.fromEntries(manifest.services.map((s) => [s.name, units[s.name]])),
    };
  },
};
