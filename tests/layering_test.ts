// The layout's one rule, as data: each folder of src/ imports only itself and the folders below it, so the tree
// shows the architecture and no part reaches up into one that builds on it (docs/development.md, "Layout").

import assert from "assert";
import { dirname, join, relative, resolve } from "path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/**
 * The parts, top to bottom: each imports only itself and the parts below it. `testing` (helpers the unit tests share)
 * is above everything and imported by tests only; no module is left directly in src/.
 */
export const LAYERS = [
  "testing",
  "cli",
  "server",
  "tools",
  "calls",
  "apps",
  "node",
  "events",
  "script",
  "answer",
  "config",
  "mero",
  "primitives",
  "lib",
] as const;

/** The part a module under src/ belongs to: its first folder, or `""` for a module directly in src/. */
function partOf(srcRelative: string): string {
  const slash = srcRelative.indexOf("/");
  return slash === -1 ? "" : srcRelative.slice(0, slash);
}

/** Test code: unit tests beside their modules and the helpers they share (src/testing/). */
function isTest(path: string): boolean {
  return /_test\.ts$/.test(path) || path.startsWith("testing/");
}

/** Every relative specifier a module names: static and dynamic imports and re-exports. */
export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.\.?\/[^"']+)["']/g)) {
    found.push(match[1]);
  }
  return found;
}

/**
 * The imports that break the rule, as "from → to" lines (paths relative to src/). `modules` maps each module's
 * path relative to src/ to its source text.
 */
export function layerViolations(modules: Map<string, string>): string[] {
  const rank = (part: string) => (LAYERS as readonly string[]).indexOf(part);
  const found: string[] = [];
  for (const [path, source] of modules) {
    const from = partOf(path);
    if (rank(from) === -1) {
      found.push(`${path}: folder "${from}" is not in the layer list`);
      continue;
    }
    for (const spec of importSpecifiers(source)) {
      const target = relative("/src", resolve("/src", dirname(path), spec));
      if (target.startsWith("..")) {
        // Outside src/: the product may read deno.json (its version); only tests may reach the test tree.
        if (!isTest(path) && !target.endsWith("deno.json")) {
          found.push(`${path} → ${spec} (outside src/)`);
        }
        continue;
      }
      const to = partOf(target);
      if (to === "testing" && isTest(path)) continue; // a test may use the shared test helpers
      if (to !== from && !(rank(to) > rank(from))) found.push(`${path} → ${target}`);
      else if (to === "mero" && from !== "mero" && !isTest(path) && target !== "mero/mod.ts") {
        found.push(`${path} → ${target} (past mero/mod.ts, the node client's one door)`);
      }
    }
  }
  return found;
}

/**
 * The import cycles among modules (folder-internal ones included): each strongly connected component of more than
 * one module, or a module importing itself, as its paths sorted and joined with " ⇄ ". Type-only imports count too:
 * a cycle of types is the same tangle to a reader, and one value import added later makes it a load-order bug.
 */
export function importCycles(modules: Map<string, string>): string[] {
  const edges = new Map<string, string[]>();
  for (const [path, source] of modules) {
    const targets = importSpecifiers(source)
      .map((spec) => relative("/src", resolve("/src", dirname(path), spec)))
      .filter((target) => modules.has(target));
    edges.set(path, targets);
  }
  // Tarjan's strongly connected components, iterative so a deep import chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[] = [];
  let next = 0;
  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; edge: number }[] = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const targets = edges.get(frame.node)!;
      if (frame.edge < targets.length) {
        const to = targets[frame.edge++];
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || targets.includes(frame.node)) {
        cycles.push(component.sort().join(" ⇄ "));
      }
    }
  }
  return cycles.sort();
}

async function readModules(
  dir: string,
  into = new Map<string, string>(),
): Promise<Map<string, string>> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) await readModules(path, into);
    else if (entry.name.endsWith(".ts")) {
      into.set(relative(SRC, path), await Deno.readTextFile(path));
    }
  }
  return into;
}

Deno.test("no module in src/ imports a folder above its own, and only tests import the test tree", async () => {
  const modules = await readModules(SRC);
  assert.ok(modules.size > 100, `read only ${modules.size} modules`);
  assert.deepEqual(layerViolations(modules), []);
});

Deno.test("no two modules in src/ import each other, directly or through others", async () => {
  assert.deepEqual(importCycles(await readModules(SRC)), []);
});

Deno.test("the cycle check names every module of a cycle, inside a folder and across folders", () => {
  const modules = new Map([
    ["tools/a.ts", 'import { b } from "./b.ts";'],
    ["tools/b.ts", 'import type { C } from "./c.ts";\nimport "../log.ts";'],
    ["tools/c.ts", 'export { a } from "./a.ts";'],
    ["tools/d.ts", 'import "./a.ts";'],
    ["log.ts", 'import "./log.ts";'],
    ["apps/x.ts", 'import "../calls/y.ts";'],
    ["calls/y.ts", 'import "../apps/x.ts";'],
  ]);
  assert.deepEqual(importCycles(modules), [
    "apps/x.ts ⇄ calls/y.ts",
    "log.ts",
    "tools/a.ts ⇄ tools/b.ts ⇄ tools/c.ts",
  ]);
});

Deno.test("the layering check names an upward import, a reach outside src/, an unknown folder and an import past the node client's door", () => {
  const modules = new Map([
    ["mero/client.ts", 'import { log } from "../server/log.ts";'],
    [
      "apps/catalog.ts",
      'import type { Gate } from "../calls/gate.ts";\nimport "../mero/mod.ts";',
    ],
    ["node/node.ts", 'const m = await import("../cli/commands.ts");'],
    ["tools/core.ts", 'export { x } from "../../tests/harness.ts";'],
    ["tools/core_test.ts", 'import { startSimNode } from "../../tests/sim_node/mod.ts";'],
    ["server/runtime.ts", 'import deno from "../../deno.json" with { type: "json" };'],
    ["extras/x.ts", ""],
    ["events/stream.ts", 'import type { EventsApi } from "../mero/sse.ts";'],
    ["events/hub.ts", 'import type { EventsApi } from "../mero/mod.ts";'],
    [
      "server/surface.ts",
      'import { a } from "./runtime.ts";\nimport { b } from "../tools/registry.ts";',
    ],
  ]);
  assert.deepEqual(layerViolations(modules), [
    "mero/client.ts → server/log.ts",
    "apps/catalog.ts → calls/gate.ts",
    "node/node.ts → cli/commands.ts",
    "tools/core.ts → ../../tests/harness.ts (outside src/)",
    'extras/x.ts: folder "extras" is not in the layer list',
    "events/stream.ts → mero/sse.ts (past mero/mod.ts, the node client's one door)",
  ]);
});
