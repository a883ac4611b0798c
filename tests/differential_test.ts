// The simulated node held to the real one (issue 43): one scenario of raw requests (tests/real_nodes/differential.ts)
// runs on two simulated nodes and is compared step by step — status, the keys of each answer, the event frames of a
// peer's write — with what two real merods at core 051f0848 answered (recorded_051f0848.json, recorded with this
// very scenario). When a merod is at hand (MERO_MCP_MEROD or ../shared/bin/merod), the scenario runs on two of them
// too and both are compared live. What the simulated node still cannot be held to this way: real WASM execution
// (its apps are TypeScript), libp2p sync timing and the SyncStatus frames of each sync round, the newer core's typed
// refusals (simulated from its source, with no newer merod here to compare), and anything after a node restart.

import assert from "assert";
import { type Observation, observe } from "./real_nodes/differential.ts";
import { bootFleet, findMerod } from "./real_nodes/boot.ts";
import { startSimNode } from "./sim_node/mod.ts";

const recorded = JSON.parse(
  await Deno.readTextFile(new URL("./real_nodes/recorded_051f0848.json", import.meta.url)),
) as { observations: Observation[] };

/** The steps where two runs differ, as lines a person reads. */
function differences(a: Observation[], b: Observation[], names: [string, string]): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (x?.step !== y?.step || x?.status !== y?.status || x?.seen !== y?.seen) {
      out.push(
        `${x?.step ?? y?.step}: ${names[0]} ${x?.status} ${x?.seen} | ${
          names[1]
        } ${y?.status} ${y?.seen}`,
      );
    }
  }
  return out;
}

/** The scenario on two fresh simulated nodes. */
async function simulated(): Promise<Observation[]> {
  const a = await startSimNode({ apps: ["kv-store"] });
  const b = await startSimNode({ apps: ["kv-store"] });
  try {
    return await observe([a.url, b.url], { id: a.appId("kv-store") });
  } finally {
    await a.close();
    await b.close();
  }
}

Deno.test({
  name:
    "the simulated node answers the scenario as two real merods at 051f0848 did: statuses, shapes, event frames",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const sim = await simulated();
    assert.deepEqual(differences(recorded.observations, sim, ["real", "sim"]), []);
  },
});

const merod = await findMerod();
const wasm = "path" in merod ? merod.path.replace(/[^/\\]+$/, "kv_store.wasm") : null;
const haveApp = wasm !== null && await Deno.stat(wasm).then(() => true, () => false);

Deno.test({
  name: "live: the scenario on two real merods matches the simulated node and the record",
  ignore: !("path" in merod) || !haveApp,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using fleet = await bootFleet((merod as { path: string }).path, 2);
    const real = await observe([fleet.nodes[0].url, fleet.nodes[1].url], { wasm: wasm! });
    const sim = await simulated();
    // deno-lint-ignore no-console -- the table, for the record
    console.error(
      real.map((o, i) =>
        `${o.step}: real ${o.status} ${o.seen} | sim ${sim[i]?.status} ${sim[i]?.seen}`
      )
        .join("\n"),
    );
    assert.deepEqual(differences(real, sim, ["real", "sim"]), []);
    assert.deepEqual(differences(recorded.observations, real, ["recorded", "real"]), []);
  },
});
