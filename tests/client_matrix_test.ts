// Real clients over stdio, against the sample apps: the widely deployed v1 TypeScript SDK client (inside most MCP
// hosts today) lists every tool and calls every generated tool with valid arguments, with its default validation
// of structured results against each tool's output schema (ajv, draft-07 rules) on; Gemini's `mcpToTool`
// (@google/genai, local conversion only, no network) turns every tool into a function declaration; LangChain's
// MCP adapter loads every tool with each parameter's schema as the server gave it; OpenAI's Agents SDK converts
// every tool to a strict function tool except those whose inputs are free-form or positional by design.

import assert from "assert";
import { Client } from "@modelcontextprotocol/sdk-v1/client";
import { StdioClientTransport } from "@modelcontextprotocol/sdk-v1/client/stdio";
import { mcpToTool } from "@google/genai";
import { loadMcpTools } from "@langchain/mcp-adapters";
import { mcpToFunctionTool } from "@openai/agents-core";
import { isolatedEnv, serverCommand } from "./harness.ts";
import { report } from "./raw_client.ts";
import { startSimNode } from "./sim_node/mod.ts";

Deno.test("the v1 SDK client calls every generated tool of the samples, tuples included, with output validation on", async () => {
  const sim = await startSimNode({
    apps: ["kv-store", "bignum", "abi-coverage", "mero-drive-docs"],
  });
  const contexts = new Map<string, string>();
  for (const app of ["kv-store", "bignum", "abi-coverage"] as const) {
    contexts.set(app, sim.createContext(sim.appId(app), { alias: app }).contextId);
  }
  const client = await v1Client(sim.url);
  const failures: string[] = [];
  let calls = 0;
  try {
    const { tools } = await client.listTools();
    for (const app of ["kv-store", "bignum", "abi-coverage"] as const) {
      const selected = await client.callTool({
        name: "select_app",
        arguments: { app, context: app },
      });
      const handle = JSON.parse((selected.content as { text: string }[])[0].text).app_handle;
      const prefix = app.replaceAll("-", "_") + "_";
      for (const tool of tools.filter((t: { name: string }) => t.name.startsWith(prefix))) {
        const schema = tool.inputSchema as Json;
        const { app_handle: _h, context: _c, ...params } = (schema.properties ?? {}) as Record<
          string,
          Json
        >;
        const required = new Set((schema.required ?? []) as string[]);
        const methodArgs = Object.fromEntries(
          Object.entries(params).filter(([name]) => required.has(name)).map((
            [name, property],
          ) => [name, sample(property, schema)]),
        );
        calls++;
        try {
          const result = await client.callTool({
            name: tool.name,
            arguments: { app_handle: handle, ...methodArgs },
          });
          if (result.isError && !EXPECTED_APP_ERRORS.has(tool.name)) {
            failures.push(`${tool.name}: ${JSON.stringify(result.content).slice(0, 300)}`);
          }
        } catch (error) {
          failures.push(`${tool.name}: ${(error as Error).message.slice(0, 300)}`);
        }
      }
    }
    assert.ok(calls >= 40, `${calls} calls made`);
    assert.deepEqual(failures, [], `${failures.length} of ${calls} calls failed`);
  } finally {
    await client.close();
    await sim.close();
  }
});

type Json = Record<string, unknown>;

/** A v1 client connected to the real server over stdio, against `sim`. */
async function v1Client(url: string): Promise<Client> {
  const { command, args } = serverCommand();
  const transport = new StdioClientTransport({
    command,
    args,
    env: await isolatedEnv({ CALIMERO_NODE_URL: url }),
    stderr: "pipe",
  });
  const client = new Client({ name: "client-matrix", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** Paths of subschemas whose only possible type is null, which Gemini refuses ("type: null can not be the only possible type"). */
function nullOnly(schema: unknown, path = "$", inAlternatives = false): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const node = schema as Json;
  const found = node.type === "null" && !inAlternatives ? [path] : [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "anyOf" && Array.isArray(value)) {
      const others = value.some((v) => (v as Json).type !== "null");
      value.forEach((v, i) => found.push(...nullOnly(v, `${path}.anyOf[${i}]`, others)));
    } else if (typeof value === "object") {
      found.push(...nullOnly(value, `${path}.${key}`));
    }
  }
  return found;
}

Deno.test("Gemini's mcpToTool converts every tool, and no parameter's only type is null", async () => {
  const sim = await startSimNode({
    apps: ["kv-store", "bignum", "abi-coverage", "mero-drive-docs", "mero-issue-tracker"],
  });
  const client = await v1Client(sim.url);
  try {
    const { tools } = await client.listTools();
    const declarations = (await mcpToTool(client).tool()).functionDeclarations ?? [];
    assert.equal(declarations.length, tools.length);
    const problems = declarations.flatMap((d) =>
      nullOnly(d.parametersJsonSchema ?? d.parameters).map((p) => `${d.name}: ${p}`)
    );
    assert.deepEqual(problems, []);
  } finally {
    await client.close();
    await sim.close();
  }
});

/** Tools whose app answers an error for default arguments on purpose (a missing key, a set flag). */
const EXPECTED_APP_ERRORS = new Set([
  "kv_store_get",
  "kv_store_get_result",
  "kv_store_get_unchecked",
]);

Deno.test("LangChain's MCP adapter loads every tool and keeps every parameter's type", async () => {
  const sim = await startSimNode({
    apps: ["kv-store", "bignum", "abi-coverage", "mero-drive-docs"],
  });
  const client = await v1Client(sim.url);
  try {
    const { tools } = await client.listTools();
    const loaded = await loadMcpTools("mero", client as never);
    assert.equal(loaded.length, tools.length);
    const lost: string[] = [];
    for (const tool of tools) {
      const adapted = loaded.find((t) => t.name === tool.name);
      const schema = (adapted as unknown as { schema?: Json } | undefined)?.schema;
      const given = (tool.inputSchema.properties ?? {}) as Record<string, Json>;
      const kept = (schema?.properties ?? {}) as Record<string, Json>;
      for (const [name, property] of Object.entries(given)) {
        const typeOf = (p: Json | undefined) =>
          JSON.stringify(p?.type ?? p?.anyOf ?? p?.$ref ?? p?.enum);
        if (typeOf(kept[name]) !== typeOf(property)) lost.push(`${tool.name}.${name}`);
      }
    }
    // join_namespace takes the invitation as an object or as its JSON text, by design; LangChain keeps the
    // object branch, which is the form invite_to_namespace returns.
    assert.deepEqual(lost, ["join_namespace.invitation"]);
  } finally {
    await client.close();
    await sim.close();
  }
});

/**
 * Why a tool cannot be strict in OpenAI's sense, or null: strict mode has no free-form objects (a map's
 * `additionalProperties` schema, an object open by design) and no positional `prefixItems` tuples.
 */
function notStrictBy(schema: unknown): string | null {
  if (typeof schema !== "object" || schema === null) return null;
  const node = schema as Json;
  if (Array.isArray(node.prefixItems)) return "a tuple";
  if (typeof node.additionalProperties === "object" && node.additionalProperties !== null) {
    return "a map";
  }
  if (
    node.type === "object" && node.additionalProperties === undefined &&
    Object.keys((node.properties ?? {}) as Json).length === 0
  ) return "a free-form object";
  for (const value of Object.values(node)) {
    const why = Array.isArray(value)
      ? value.map(notStrictBy).find((w) => w !== null) ?? null
      : notStrictBy(value);
    if (why !== null) return why;
  }
  return null;
}

Deno.test("OpenAI's Agents SDK makes every tool strict but those with maps, tuples or free-form inputs", async () => {
  const sim = await startSimNode({
    apps: ["kv-store", "bignum", "abi-coverage", "mero-drive-docs", "mero-issue-tracker"],
  });
  const client = await v1Client(sim.url);
  try {
    const { tools } = await client.listTools();
    const strict: string[] = [];
    const loose: string[] = [];
    for (const tool of tools) {
      const converted = mcpToFunctionTool(tool as never, { name: "mero" } as never, true) as {
        strict?: boolean;
      };
      (converted.strict ? strict : loose).push(tool.name);
    }
    const expected = tools.filter((t: { inputSchema: unknown }) =>
      notStrictBy(t.inputSchema) !== null
    )
      .map((t: { name: string }) => t.name);
    report("matrix", `OpenAI strict: ${strict.length} of ${tools.length} tools`);
    assert.deepEqual(loose.sort(), expected.sort());
    assert.ok(strict.length >= tools.length - 15, `${loose.length} tools are not strict: ${loose}`);
  } finally {
    await client.close();
    await sim.close();
  }
});

/** A valid value for a JSON Schema as the server advertises it (the first choice of every alternative). */
function sample(schema: Json, root: Json, depth = 0): unknown {
  if (depth > 32) return null;
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.replace("#/$defs/", "");
    return sample((root.$defs as Record<string, Json>)[name], root, depth + 1);
  }
  if (Array.isArray(schema.anyOf)) return sample(schema.anyOf[0] as Json, root, depth + 1);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case "string": {
      const pattern = String(schema.pattern ?? "");
      const hex = /\[0-9a-fA-F\]\{(\d+)\}/.exec(pattern);
      if (hex) return "0".repeat(Number(hex[1]));
      if (pattern.includes("0-9a-fA-F")) return "";
      if (pattern !== "") return "0";
      return "x";
    }
    case "integer":
    case "number":
      return 0;
    case "boolean":
      return false;
    case "null":
      return null;
    case "array":
      return Array.isArray(schema.prefixItems)
        ? (schema.prefixItems as Json[]).map((item) => sample(item, root, depth + 1))
        : [];
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      if (schema.minProperties === 1) {
        const [name, property] = Object.entries(properties)[0];
        return { [name]: sample(property, root, depth + 1) };
      }
      const required = new Set((schema.required ?? []) as string[]);
      return Object.fromEntries(
        Object.entries(properties).filter(([name]) => required.has(name)).map((
          [name, property],
        ) => [name, sample(property, root, depth + 1)]),
      );
    }
  }
  return null;
}
