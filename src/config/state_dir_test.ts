import assert from "assert";
import { join } from "path";
import { prepareStateDir } from "./state_dir.ts";

const posix = Deno.build.os !== "windows";

async function sandbox() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "mero-state-" }));
  const home = join(root, "home");
  const nodeHome = join(home, ".calimero");
  await Deno.mkdir(join(nodeHome, "default"), { recursive: true });
  await Deno.writeTextFile(join(nodeHome, "default", "config.toml"), 'keypair = "secret"\n');
  return { root, home, nodeHome, cleanup: () => Deno.remove(root, { recursive: true }) };
}

Deno.test("a new state dir is created 0700; the default place under the home is fine", async () => {
  const s = await sandbox();
  try {
    const dir = join(s.home, ".config", "calimero", "mcp");
    await prepareStateDir(dir, { home: s.home, nodeHome: s.nodeHome });
    if (posix) assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
  } finally {
    await s.cleanup();
  }
});

Deno.test("the home directory, the node home, or a dir around or inside it is refused", async () => {
  const s = await sandbox();
  try {
    const cases: [string, RegExp][] = [
      [s.home, /is your home directory/],
      [s.root, /contains your home directory/],
      [s.nodeHome, /is the node home/],
      [join(s.nodeHome, "default"), /lies inside the node home/],
    ];
    for (const [dir, message] of cases) {
      await assert.rejects(
        prepareStateDir(dir, { home: s.home, nodeHome: s.nodeHome }),
        message,
        dir,
      );
    }
  } finally {
    await s.cleanup();
  }
});

Deno.test({
  name:
    "an existing dir open to others: tightened when it holds only our files, else refused and left as is",
  ignore: !posix,
  fn: async () => {
    const s = await sandbox();
    try {
      const ours = join(s.root, "mcp");
      await Deno.mkdir(ours, { mode: 0o755 });
      await Deno.chmod(ours, 0o755);
      await Deno.writeTextFile(join(ours, "agent.json"), "{}");
      await Deno.writeTextFile(join(ours, "handle.key"), "k");
      await prepareStateDir(ours, { home: s.home, nodeHome: s.nodeHome });
      assert.equal((await Deno.stat(ours)).mode! & 0o777, 0o700);
      const shared = join(s.root, "team");
      await Deno.mkdir(shared, { mode: 0o775 });
      await Deno.chmod(shared, 0o775);
      await Deno.writeTextFile(join(shared, "notes.txt"), "team notes");
      await assert.rejects(
        prepareStateDir(shared, { home: s.home, nodeHome: s.nodeHome }),
        /open to other users \(mode 775\).*chmod 700/,
      );
      assert.equal((await Deno.stat(shared)).mode! & 0o777, 0o775, "left as it was");
    } finally {
      await s.cleanup();
    }
  },
});

Deno.test({
  name: "symlinks: ours (handle.key, token files) are removed, any other is refused",
  ignore: !posix,
  fn: async () => {
    const s = await sandbox();
    try {
      const dir = join(s.root, "state");
      await Deno.mkdir(dir, { mode: 0o700 });
      const victim = join(s.root, "victim.txt");
      await Deno.writeTextFile(victim, "IMPORTANT USER DATA");
      await Deno.symlink(victim, join(dir, "handle.key"));
      await Deno.symlink(victim, join(dir, "tokens-0a1b.json.lock"));
      await prepareStateDir(dir, { home: s.home, nodeHome: s.nodeHome });
      assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);
      assert.equal(await Deno.readTextFile(victim), "IMPORTANT USER DATA");
      await Deno.symlink(join(s.nodeHome, "default"), join(dir, "planted-dir"));
      await assert.rejects(
        prepareStateDir(dir, { home: s.home, nodeHome: s.nodeHome }),
        /planted-dir" in the state directory is a symbolic link/,
      );
    } finally {
      await s.cleanup();
    }
  },
});
