import assert from "node:assert/strict";
import { parseAbiManifest } from "./abi_parse.ts";
import { clientDeclarations, SCRIPT_PRELUDE, tsType } from "./client_types.ts";

const FIXTURES = new URL("../../tests/sim_node/apps/fixtures/", import.meta.url);
const manifestOf = async (name: string) =>
  parseAbiManifest(JSON.parse(await Deno.readTextFile(new URL(name, FIXTURES))));

/** Type-checks `script` (a script body) against the declarations with the real TypeScript checker. */
async function check(declarations: string, script: string): Promise<{ ok: boolean; text: string }> {
  const dir = await Deno.makeTempDir({ prefix: "mero-mcp-client-" });
  try {
    await Deno.writeTextFile(
      `${dir}/check.ts`,
      `${declarations}\nexport async function script() {\n${script}\n}\n`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--no-config", "--no-lock", `${dir}/check.ts`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { ok: out.success, text: new TextDecoder().decode(out.stderr) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("kv-store's client: each method typed from the ABI, init left out, events as a union", async () => {
  const manifest = await manifestOf("kv-store.abi.json");
  const text = clientDeclarations(manifest, "kv_store", "com.calimero.kv-store");
  assert.match(text, /declare namespace calimero\.kv_store \{/);
  assert.match(text, /const kv_store: \{/);
  assert.match(
    text,
    /set\(args: \{ key: string; value: string \}, options: \{ context: string \}\): Promise<null>;/,
  );
  assert.match(
    text,
    /get\(args: \{ key: string \}, options: \{ context: string \}\): Promise<string>;/,
  );
  assert.doesNotMatch(text, /\binit\(/);
  assert.match(
    text,
    /type Event = \{ name: "Cleared"; payload: null \} \| \{ name: "Inserted"; payload: /,
  );
  assert.match(text, /\/\*\* \(reads\) [^\n]*naming it\. \*\/\n {4}get\(/);
  assert.match(
    text,
    /\/\*\* \(writes, destructive: not run from scripts\)[^\n]*\*\/\n {4}remove\(/,
  );
});

Deno.test("the declarations type-check a right script and catch a wrong one", async () => {
  const manifest = await manifestOf("kv-store.abi.json");
  const declarations = `${SCRIPT_PRELUDE}\n${clientDeclarations(manifest, "kv_store", "kv")}`;
  const right = await check(
    declarations,
    `const v: string | null = await calimero.kv_store.get({ key: "a" }, { context: "c" });
     await calimero.kv_store.set({ key: "a", value: v ?? "" }, { context: "c" });
     const e = await calimero.waitForEvents({ context: "c" }); console.log(e.cursor);`,
  );
  assert.ok(right.ok, right.text);
  const wrong = await check(
    declarations,
    `await calimero.kv_store.set({ key: 1 }, { context: "c" });`,
  );
  assert.equal(wrong.ok, false);
  assert.match(wrong.text, /TS2322|TS2345|TS2741/);
});

Deno.test("every type of the coverage ABI maps, recursive types by name, and the whole client type-checks", async () => {
  const manifest = await manifestOf("abi-coverage.abi.json");
  const text = clientDeclarations(manifest, "abi_coverage", "abi-coverage");
  assert.doesNotMatch(text, /undefined/);
  const checked = await check(text, "");
  assert.ok(checked.ok, checked.text);
  assert.equal(tsType(manifest, { kind: "u64" }), "string");
  assert.equal(tsType(manifest, { kind: "bytes", size: 32 }), "string /* hex */");
  assert.equal(tsType(manifest, { $ref: "NoSuchType" }), "unknown");
});

Deno.test("hostile names and docs cannot break out of the declarations", () => {
  const manifest = {
    schema_version: "wasm-abi/1",
    types: {},
    methods: [{
      name: "a b",
      params: [{ name: 'x"y', type: { kind: "string" } }],
      doc: "*/ declare const pwned: 1; /*\u202e",
      intent: "read_only",
    }],
    events: [],
  };
  const text = clientDeclarations(manifest as never, "app", "t\nx");
  assert.match(text, /"a b"\(/);
  assert.doesNotMatch(text, /\*\/ declare const pwned/);
  assert.doesNotMatch(text, /\u202e/);
});

Deno.test("the server's mark leads each method's doc, and names TypeScript reserves (delete, new, Event, Array) still type-check", async () => {
  const manifest = parseAbiManifest({
    schema_version: "wasm-abi/1",
    types: {
      Event: { kind: "record", fields: [{ name: "at", type: { kind: "u32" } }] },
      B: { kind: "record", fields: [{ name: "x", type: { kind: "string" } }] },
      a__B: { kind: "record", fields: [{ name: "y", type: { kind: "bool" } }] },
      Array: { kind: "record", fields: [] },
    },
    methods: [
      {
        name: "peek",
        params: [],
        returns: { $ref: "Event" },
        intent: "mutating",
        destructive: true,
        doc: `Reads a note (reads). ${"It only looks. ".repeat(20)}`,
      },
      {
        name: "delete",
        params: [{ name: "b", type: { $ref: "B" } }],
        returns: { $ref: "a__B" },
      },
      { name: "new", params: [], returns: { kind: "list", items: { $ref: "Array" } } },
    ],
    events: [{ name: "Moved", payload: { $ref: "a__B" } }],
  });
  const text = clientDeclarations(manifest, "notes", "notes");
  assert.match(text, /\/\*\* \(writes, destructive: not run from scripts\) Reads a note \(reads\)/);
  const checked = await check(
    `${SCRIPT_PRELUDE}\n${text}`,
    `const e = await calimero.notes.peek({}, { context: "c" });
     const b = await calimero.notes.delete({ b: { x: "1" } }, { context: "c" });
     const y: boolean = b.y; const at: number = e.at;
     const all = await calimero.notes.new({}, { context: "c" });
     let ev: calimero.notes.Event | null = null; console.log(y, at, all, ev);`,
  );
  assert.ok(checked.ok, `${checked.text}\n${text}`);
});
