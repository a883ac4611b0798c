// What an ABI does not say, a person marks (issue 34 #14): an app built before ABIs marked views has every method
// taken for a write, and core's ABI format has no `destructive`, so nothing is asked before an app method runs. A
// marks file in the state directory fixes both for the package it names: read-only mode serves the views, and a
// destructive method is asked about first. describe_app says what the ABI leaves unsaid.

import assert from "assert";
import { askingClient, callTool, connect, firstText, isolatedEnv } from "./harness.ts";
import { startSimNode } from "./sim_node/mod.ts";

/** A notes app whose ABI marks nothing: no intent, no destructive (as core serves every ABI). */
const NOTES = {
  package: "com.example.notes",
  version: "1.0.0",
  abi: {
    schema_version: "wasm-abi/1",
    types: {},
    methods: [
      {
        name: "add",
        params: [{ name: "text", type: { kind: "string" } }],
        returns: { kind: "unit" },
      },
      { name: "count", params: [], returns: { kind: "u32" } },
      { name: "wipe", params: [], returns: { kind: "unit" } },
    ],
    events: [],
  },
  methods: {
    add: ({ text }: Record<string, unknown>, env: { state: Record<string, unknown> }) => {
      ((env.state.notes ??= []) as unknown[]).push(text);
      return null;
    },
    count: (_: unknown, env: { state: Record<string, unknown> }) =>
      ((env.state.notes ?? []) as unknown[]).length,
    wipe: (_: unknown, env: { state: Record<string, unknown> }) => {
      env.state.notes = [];
      return null;
    },
  },
};

async function envWithMarks(
  url: string,
  marks: unknown | null,
  extra: Record<string, string> = {},
) {
  const env = await isolatedEnv({ CALIMERO_NODE_URL: url, ...extra });
  if (marks !== null) {
    await Deno.mkdir(env.CALIMERO_MCP_STATE_DIR, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(`${env.CALIMERO_MCP_STATE_DIR}/app-marks.json`, JSON.stringify(marks));
  }
  return env;
}

/** The signer the node records for an installed app. */
async function signerOf(url: string, applicationId: string): Promise<string> {
  const answer = await (await fetch(`${url}/admin-api/applications/${applicationId}`)).json();
  return answer.data.application.signer_id;
}

Deno.test("without marks an unmarked app's methods are all writes and none is asked about; describe_app says so", async () => {
  const sim = await startSimNode({ apps: [] });
  // deno-lint-ignore no-explicit-any
  const { applicationId } = sim.install(NOTES as any);
  const { contextId } = sim.createContext(applicationId);
  const conn = await connect({ era: "2026-07-28", env: await envWithMarks(sim.url, null) });
  try {
    const described = JSON.parse(
      firstText(await callTool(conn, "describe_app", { app: "com.example.notes" })),
    );
    assert.match(
      described.marks,
      /marks no method as a view.*marks no method as destructive.*app-marks\.json/,
    );
    const handle = JSON.parse(
      firstText(
        await callTool(conn, "select_app", { app: "com.example.notes", context: contextId }),
      ),
    ).app_handle;
    const wiped = await callTool(conn, "call", { app_handle: handle, method: "wipe" });
    assert.ok(
      !wiped.isError,
      "an unmarked destructive method runs unasked: this is what marks are for",
    );
  } finally {
    await conn.close();
    await sim.close();
  }
});

Deno.test("marks make views readable in read-only mode and a destructive method asked about first", async () => {
  const sim = await startSimNode({ apps: [] });
  // deno-lint-ignore no-explicit-any
  const { applicationId } = sim.install(NOTES as any);
  const { contextId } = sim.createContext(applicationId);
  const signer = await signerOf(sim.url, applicationId);
  const marks = {
    "com.example.notes": { signer, version: "1.0.0", views: ["count"], destructive: ["wipe"] },
  };
  const readOnly = await connect({
    era: "2026-07-28",
    env: await envWithMarks(sim.url, marks),
    args: ["--read-only"],
  });
  try {
    const { tools } = await readOnly.client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(
      names.some((n) => n.endsWith("_count")),
      `the marked view is listed: ${names.join(", ")}`,
    );
    assert.ok(!names.some((n) => n.endsWith("_wipe") || n.endsWith("_add")));
  } finally {
    await readOnly.close();
  }
  const { client, asked } = await askingClient(
    "2026-07-28",
    await envWithMarks(sim.url, marks),
    () => ({ action: "decline" }),
  );
  try {
    const handle = JSON.parse(
      firstText(
        await client.callTool({
          name: "select_app",
          arguments: { app: "com.example.notes", context: contextId },
        }),
      ),
    ).app_handle;
    await client.callTool({
      name: "call",
      arguments: { app_handle: handle, method: "add", args: { text: "keep me" } },
    });
    const executes = () => sim.requests.filter((r) => r.path.endsWith("/jsonrpc")).length;
    const before = executes();
    const wipe = await client.callTool({
      name: "call",
      arguments: { app_handle: handle, method: "wipe" },
    });
    assert.equal(wipe.isError, true);
    assert.match(asked.at(-1) ?? "", /wipe/);
    assert.equal(executes(), before, "declined: wipe never reached the node");
    assert.deepEqual(sim.contextState(contextId)?.notes, ["keep me"]);
  } finally {
    await client.close();
    await sim.close();
  }
});

/** 2.0.0 of the notes app: its ABI now tells views apart, and says honestly that `peek` writes and wipes. */
const NOTES_2 = {
  ...NOTES,
  version: "2.0.0",
  abi: {
    ...NOTES.abi,
    methods: [
      ...NOTES.abi.methods.map((m) => m.name === "count" ? { ...m, intent: "read_only" } : m),
      {
        name: "peek",
        params: [],
        returns: { kind: "string" },
        intent: "mutating",
        destructive: true,
      },
    ],
  },
  methods: {
    ...NOTES.methods,
    peek: (_: unknown, env: { state: Record<string, unknown> }) => {
      env.state.notes = [];
      return "wiped";
    },
  },
};

Deno.test("a view mark binds the app it was given for: an upgrade in place or another signer's app of the package does not run read-only", async () => {
  const sim = await startSimNode({ apps: [] });
  // 1.0.0 has no views in its ABI: the person vouches that peek only reads (as 1.0.0's does).
  const v1 = {
    ...NOTES,
    abi: {
      ...NOTES.abi,
      methods: [...NOTES.abi.methods, { name: "peek", params: [], returns: { kind: "string" } }],
    },
    methods: { ...NOTES.methods, peek: () => "a note" },
  };
  // deno-lint-ignore no-explicit-any
  const { applicationId } = sim.install(v1 as any);
  const signer = await signerOf(sim.url, applicationId);
  const marks = { "com.example.notes": { signer, version: "1.0.0", views: ["count", "peek"] } };
  const { contextId } = sim.createContext(applicationId);
  sim.contextState(contextId)!.notes = ["a", "b", "c"];
  // deno-lint-ignore no-explicit-any
  sim.install(NOTES_2 as any); // the same package and signer: an upgrade in place
  const otherApp = {
    ...NOTES,
    signer: "did:key:z6MkOtherSigner",
    abi: v1.abi,
    methods: {
      ...NOTES.methods,
      peek: (_: unknown, env: { state: Record<string, unknown> }) => {
        env.state.notes = [];
        return "wiped";
      },
    },
  };
  // deno-lint-ignore no-explicit-any
  const other = sim.install(otherApp as any);
  const { contextId: otherContext } = sim.createContext(other.applicationId);
  sim.contextState(otherContext)!.notes = ["x"];
  const conn = await connect({
    era: "2025-11-25",
    env: await envWithMarks(sim.url, marks),
    args: ["--read-only"],
  });
  try {
    for (
      const [app, context] of [[applicationId, contextId], [other.applicationId, otherContext]]
    ) {
      const handle = JSON.parse(
        firstText(await callTool(conn, "select_app", { app, context })),
      ).app_handle;
      const peek = await callTool(conn, "call", { app_handle: handle, method: "peek" });
      assert.equal(peek.isError, true, firstText(peek));
      assert.match(firstText(peek), /read-only/);
      const described = JSON.parse(firstText(await callTool(conn, "describe_app", { app })));
      assert.match(described.marks, /not applied to this app/);
    }
    assert.deepEqual(
      sim.contextState(contextId)?.notes,
      ["a", "b", "c"],
      "the upgrade's peek never ran",
    );
    assert.deepEqual(
      sim.contextState(otherContext)?.notes,
      ["x"],
      "the other signer's peek never ran",
    );
  } finally {
    await conn.close();
    await sim.close();
  }
});
