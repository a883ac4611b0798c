// B3's workload: deterministic `wasm-abi/1` apps shaped like the real ones in ../data (records with u64 and
// nullable fields, lists, maps, unit and payload variants, aliases, CRDT wrappers, docs), ready for
// `SimNode.install`. The same seed always gives the same apps, so runs compare.

import type { CustomApp } from "../sim_node/mod.ts";

type Json = Record<string, unknown>;

/** A small seeded PRNG (mulberry32): deterministic across runs and machines. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NOUNS = [
  "item",
  "task",
  "note",
  "member",
  "order",
  "invoice",
  "ticket",
  "post",
  "comment",
  "file",
  "folder",
  "vote",
  "proposal",
  "event",
  "message",
  "channel",
  "asset",
  "listing",
  "review",
  "badge",
];
const VERBS_READ = ["get", "list", "count", "find", "search", "show"];
const VERBS_WRITE = ["create", "update", "delete", "set", "add", "remove", "archive", "assign"];
const FIELDS = [
  "title",
  "body",
  "owner",
  "status",
  "created_at",
  "updated_at",
  "tags",
  "priority",
  "amount",
  "due",
  "labels",
  "parent",
  "score",
  "url",
  "summary",
];

const str = { kind: "string" };
const u64 = { kind: "u64" };
const u32 = { kind: "u32" };
const bool = { kind: "bool" };
const lww = (inner: Json) => ({
  kind: "record",
  fields: [],
  crdt_type: "lww_register",
  inner_type: inner,
});

/** The named types of one app: a main record, a view record, a status enum, an action variant, an alias. */
function appTypes(noun: string, rand: () => number): Json {
  const cap = noun[0].toUpperCase() + noun.slice(1);
  const extra = FIELDS.filter(() => rand() < 0.4).slice(0, 6);
  const fieldType = (name: string): Json =>
    name.endsWith("_at") || name === "amount" || name === "score"
      ? u64
      : name === "tags" || name === "labels"
      ? { kind: "list", items: str }
      : name === "priority"
      ? u32
      : str;
  return {
    [`${cap}Id`]: { kind: "alias", target: { kind: "bytes", size: 32, encoding: "hex" } },
    [`${cap}Status`]: {
      kind: "variant",
      variants: ["Open", "Active", "Blocked", "Done"].map((name) => ({ name })),
    },
    [`${cap}Action`]: {
      kind: "variant",
      variants: [
        { name: "Touch" },
        { name: "Rename", payload: str },
        { name: "Move", payload: { $ref: `${cap}View` } },
      ],
    },
    [cap]: {
      kind: "record",
      doc: `A ${noun} as stored in the app state; registers converge last-writer-wins.`,
      fields: [
        { name: "id", type: str },
        { name: "title", type: lww(str) },
        { name: "created_at", type: u64 },
        ...extra.map((name) => ({ name: `x_${name}`, type: lww(fieldType(name)) })),
      ],
    },
    [`${cap}View`]: {
      kind: "record",
      doc: `A ${noun} as returned to clients.`,
      fields: [
        { name: "id", type: str },
        { name: "title", type: str },
        { name: "status", type: { $ref: `${cap}Status` } },
        { name: "created_at", type: u64 },
        { name: "edited_at", type: u64, nullable: true },
        ...extra.map((name) => ({
          name: `x_${name}`,
          type: fieldType(name),
          ...(rand() < 0.5 ? { nullable: true } : {}),
        })),
      ],
    },
    AppState: {
      kind: "record",
      fields: [{
        name: `${noun}s`,
        type: { kind: "map", key: str, value: { $ref: cap }, crdt_type: "unordered_map" },
      }],
    },
  };
}

/** One method: a read or a write on the app's noun, with parameters and return drawn from its types. */
function appMethod(noun: string, index: number, rand: () => number): Json {
  const cap = noun[0].toUpperCase() + noun.slice(1);
  const read = rand() < 0.45;
  const verbs = read ? VERBS_READ : VERBS_WRITE;
  const verb = verbs[Math.floor(rand() * verbs.length)];
  const name = `${verb}_${noun}${index === 0 ? "" : `_${index}`}`;
  const params: Json[] = [];
  const pool: [string, Json, boolean][] = [
    ["id", str, false],
    ["title", str, false],
    ["status", { $ref: `${cap}Status` }, false],
    ["limit", u32, true],
    ["offset", u64, true],
    ["tags", { kind: "list", items: str }, true],
    ["view", { $ref: `${cap}View` }, false],
    ["action", { $ref: `${cap}Action` }, false],
    ["amount", u64, false],
    ["flag", bool, true],
    ["ref_id", { $ref: `${cap}Id` }, true],
    ["attrs", { kind: "map", key: str, value: str }, true],
  ];
  const count = 1 + Math.floor(rand() * 4);
  for (const [pname, type, nullable] of pool.filter(() => rand() < 0.35).slice(0, count)) {
    params.push({ name: pname, type, ...(nullable ? { nullable: true } : {}) });
  }
  const returns: Json | null = read
    ? rand() < 0.5 ? { kind: "list", items: { $ref: `${cap}View` } } : { $ref: `${cap}View` }
    : rand() < 0.5
    ? null
    : rand() < 0.5
    ? str
    : u64;
  const method: Json = {
    name,
    params,
    intent: read ? "read_only" : "mutating",
  };
  if (returns) method.returns = returns;
  if (read && rand() < 0.3) method.returns_nullable = true;
  if (rand() < 0.6) {
    method.doc = read
      ? `Returns the ${noun}s matching the arguments, newest first.`
      : `Changes a ${noun}; fails when the caller does not own it.`;
  }
  return method;
}

/** The ABI of one generated app with `methods` methods (plus `init`). */
export function generatedAbi(app: number, methods: number): Json {
  const rand = prng(0x5eed + app * 7919);
  const noun = NOUNS[app % NOUNS.length];
  const list = [{ name: "init", params: [], intent: "mutating" }];
  for (let i = 0; i < methods; i++) list.push(appMethod(noun, i, rand) as typeof list[number]);
  // Method names must be unique within an app; a repeated draw gets its index.
  const seen = new Set<string>();
  for (const [i, m] of list.entries()) {
    if (seen.has(m.name)) m.name = `${m.name}_${i}`;
    seen.add(m.name);
  }
  return {
    schema_version: "wasm-abi/1",
    types: appTypes(noun, rand),
    methods: list,
    events: [{
      name: `${noun[0].toUpperCase() + noun.slice(1)}Changed`,
      payload: { kind: "string" },
    }],
    state_root: "AppState",
  };
}

/** `count` apps of `methods` methods each, as `SimNode.install` takes them; every tenth has a short guide. */
export function generatedApps(count: number, methods: number): CustomApp[] {
  return Array.from({ length: count }, (_, i) => {
    const noun = NOUNS[i % NOUNS.length];
    const slug = `${noun}s${String(i).padStart(3, "0")}`;
    return {
      package: `com.bench.${slug}`,
      version: `1.${i % 7}.0`,
      name: `Bench ${noun}s ${i}`,
      description: `Generated app ${i}: ${noun}s with ${methods} methods.`,
      ...(i % 10 === 0
        ? {
          guide:
            `# ${slug}\n\nUse select_app, then the ${noun} tools.\n\n## Procedures\n\n### Create a ${noun}\n\n` +
            `Call create_${noun} with a title. ${"Keep titles short. ".repeat(40)}\n`,
        }
        : {}),
      abi: generatedAbi(i, methods),
    };
  });
}
