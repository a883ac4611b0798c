import assert from "node:assert/strict";
import { readSelected, SELECTED_FILE, selectedRecorder } from "./selected_record.ts";

const ID = (n: number) => `${"1".repeat(43)}${n}`.slice(-44);

Deno.test("the contexts select_app binds are recorded newest last, at most 16, and read back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const record = selectedRecorder(dir);
    for (let i = 0; i < 20; i++) record(`${"A".repeat(43)}${"BCDEFGHJKLMNPQRSTUVWX"[i]}`);
    record(`${"A".repeat(43)}E`); // selected again: moves to the end
    await new Promise((r) => setTimeout(r, 100));
    const read = await readSelected(dir);
    assert.equal(read.length, 16);
    assert.equal(read.at(-1), `${"A".repeat(43)}E`);
    assert.equal((await Deno.stat(`${dir}/${SELECTED_FILE}`)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a record that is not ours reads as nothing: no file, bad JSON, or values that are not context ids", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.deepEqual(await readSelected(dir), []);
    await Deno.writeTextFile(`${dir}/${SELECTED_FILE}`, "{not json");
    assert.deepEqual(await readSelected(dir), []);
    await Deno.writeTextFile(
      `${dir}/${SELECTED_FILE}`,
      JSON.stringify({ contexts: ["../../etc", 5, ID(7)] }),
    );
    assert.deepEqual(await readSelected(dir), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
