import assert from "assert";
import fc from "fast-check";
import {
  assignToolNames,
  FIXED_TOOL_NAMES,
  type NamingUnit,
  sanitize,
  type ToolTarget,
} from "./names.ts";

const NAME = /^[a-z0-9_]{1,49}$/;

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function unit(
  applicationId: string,
  pkg: string | null,
  methods: string[],
  service: string | null = null,
  serviceCount = service === null ? 0 : 1,
): NamingUnit {
  return { applicationId, package: pkg, service, serviceCount, methods };
}

/** The map as sorted [name, "id/service/method"] pairs, for readable comparisons. */
function flat(names: Map<string, ToolTarget>): string[] {
  return [...names].map(([name, t]) =>
    `${name} -> ${t.applicationId}/${t.service ?? "-"}/${t.method}`
  )
    .sort();
}

const SANITIZE = [
  ["get", "get"],
  ["Get_Value", "get_value"],
  ["mero-issue-tracker", "mero_issue_tracker"],
  ["a--b", "a_b"],
  ["a -.b", "a_b"],
  ["a__b", "a__b"],
  ["-lead and trail-", "_lead_and_trail_"],
  ["Ünïcode ✓ 𝄞", "_n_code_"],
  ["", ""],
] as const;

for (const [input, expected] of SANITIZE) {
  Deno.test(`sanitize(${JSON.stringify(input)}) is ${JSON.stringify(expected)}`, () => {
    assert.equal(sanitize(input), expected);
  });
}

Deno.test("fixed tool names cover every fixed tool, the app tools included", () => {
  assert.equal(FIXED_TOOL_NAMES.length, 53);
  assert.equal(new Set(FIXED_TOOL_NAMES).size, FIXED_TOOL_NAMES.length);
  for (
    const name of [
      "node_status",
      "upload_blob",
      "join_open_group",
      "call",
      "call_many",
      "wait_for_events",
      "find_methods",
      "run_script",
    ]
  ) {
    assert.equal(FIXED_TOOL_NAMES.includes(name), true, name);
  }
  assert.throws(() => (FIXED_TOOL_NAMES as string[]).push("x"));
});

const TABLE: { name: string; units: NamingUnit[]; expected: string[] }[] = [
  {
    name: "the slug is the sanitized trailing package segment",
    units: [unit("Kv1", "com.calimero.kv-store", ["set", "get"])],
    expected: ["kv_store_get -> Kv1/-/get", "kv_store_set -> Kv1/-/set"],
  },
  {
    name: "an app without a package is named by its id",
    units: [unit("5HnQ3rVX9sZy1xTtFfJ7kR", null, ["get"])],
    expected: ["5hnq3rvx9szy1xttffj7_get -> 5HnQ3rVX9sZy1xTtFfJ7kR/-/get"],
  },
  {
    name: "a long package segment is cut to 20 characters",
    units: [unit("Id1", "com.example.A-Very-Long-Application-Name", ["get"])],
    expected: ["a_very_long_applicat_get -> Id1/-/get"],
  },
  {
    name: "a package without dots is its own segment; method names are sanitized",
    units: [unit("Id1", "Chat", ["Send-Message"])],
    expected: ["chat_send_message -> Id1/-/Send-Message"],
  },
  {
    name: "an app with exactly one service leaves the service out",
    units: [unit("It1", "com.calimero.mero-issue-tracker", ["get_issue"], "issue-tracker", 1)],
    expected: ["mero_issue_tracker_get_issue -> It1/issue-tracker/get_issue"],
  },
  {
    name: "an app with several services puts segment (12) and service (16) in the slug",
    units: [
      unit("Dr1", "com.calimero.mero-drive-application", ["list"], "file-storage-service-long", 2),
      unit("Dr1", "com.calimero.mero-drive-application", ["list"], "chat", 2),
    ],
    expected: [
      "mero_drive_a_chat_list -> Dr1/chat/list",
      "mero_drive_a_file_storage_ser_list -> Dr1/file-storage-service-long/list",
    ],
  },
  {
    name: "one package from two signers suffixes both apps with their own ids",
    units: [
      unit("AbCdEf123", "com.calimero.kv-store", ["get"]),
      unit("XyZ987qwe", "com.calimero.kv-store", ["get"]),
      unit("Other1", "com.calimero.chat", ["get"]),
    ],
    expected: [
      "chat_get -> Other1/-/get",
      "kv_store_abcdef_get -> AbCdEf123/-/get",
      "kv_store_xyz987_get -> XyZ987qwe/-/get",
    ],
  },
  {
    name: "two packages that sanitize to one slug are both suffixed",
    units: [
      unit("Aaa111", "com.a.mero-chat", ["send"]),
      unit("Bbb222", "org.b.Mero_Chat", ["send"]),
    ],
    expected: ["mero_chat_aaa111_send -> Aaa111/-/send", "mero_chat_bbb222_send -> Bbb222/-/send"],
  },
  {
    name: "packages that differ only after 20 characters collide and are suffixed",
    units: [
      unit("One111", "x.abcdefghijklmnopqrst-one", ["m"]),
      unit("Two222", "x.abcdefghijklmnopqrst-two", ["m"]),
    ],
    expected: [
      "abcdefghijklmnopqrst_one111_m -> One111/-/m",
      "abcdefghijklmnopqrst_two222_m -> Two222/-/m",
    ],
  },
  {
    name: "the id suffix takes the first 6 alphanumerics, lowercased",
    units: [unit("a-B_c.D1e2F3", "p.kv", ["get"]), unit("Zz-9", "q.kv", ["get"])],
    expected: ["kv_abcd1e_get -> a-B_c.D1e2F3/-/get", "kv_zz9_get -> Zz-9/-/get"],
  },
  {
    name:
      "a name equal to a fixed tool (app node, method status) gets the id suffix; its other names do not",
    units: [unit("NoDe42x", "com.example.node", ["status", "get"])],
    expected: ["node_get -> NoDe42x/-/get", "node_node42_status -> NoDe42x/-/status"],
  },
  {
    name: "an app named call with a method many does not take call_many",
    units: [unit("Ca11er", "call", ["many"])],
    expected: ["call_ca11er_many -> Ca11er/-/many"],
  },
  {
    name: "two generated names that are equal both get their id suffix",
    units: [
      unit("DrvA01", "com.x.drive", ["list"], "files", 2),
      unit("DrvA01", "com.x.drive", ["list"], "chat", 2),
      unit("DrvB02", "com.y.drive", ["files_list"]),
    ],
    expected: [
      "drive_chat_list -> DrvA01/chat/list",
      "drive_drvb02_files_list -> DrvB02/-/files_list",
      "drive_files_drva01_list -> DrvA01/files/list",
    ],
  },
];

for (const { name, units, expected } of TABLE) {
  Deno.test(`names: ${name}`, async () => {
    const names = await assignToolNames(units);
    assert.deepEqual(flat(names), expected);
    for (const n of names.keys()) assert.match(n, NAME);
  });
}

Deno.test("a name over 49 characters is its first 42, _, and 6 hex of sha256(full name)", async () => {
  const method = "get_every_issue_with_its_comments_and_labels";
  const full = `mero_issue_tracker_${method}`;
  const names = await assignToolNames([unit("It1", "com.calimero.mero-issue-tracker", [method])]);
  const expected = `${full.slice(0, 42)}_${(await sha256Hex(full)).slice(0, 6)}`;
  assert.equal(expected.length, 49);
  assert.deepEqual(flat(names), [`${expected} -> It1/-/${method}`]);
});

Deno.test("a long name that is suffixed hashes its suffixed full name", async () => {
  const method = "get_every_issue_with_its_comments_and_labels";
  const names = await assignToolNames([
    unit("Aaa111", "a.tracker", [method]),
    unit("Bbb222", "b.tracker", [method]),
  ]);
  const fullA = `tracker_aaa111_${method}`;
  const expectedA = `${fullA.slice(0, 42)}_${(await sha256Hex(fullA)).slice(0, 6)}`;
  assert.equal(names.get(expectedA)?.applicationId, "Aaa111");
  assert.equal(names.size, 2);
});

Deno.test("names the rules cannot separate (two services of one app that sanitize alike) still differ", async () => {
  const units = [
    unit("Same01", "com.x.tracker", ["get", "put"], "issue-tracker", 2),
    unit("Same01", "com.x.tracker", ["get"], "issue_tracker", 2),
  ];
  const names = await assignToolNames(units);
  assert.equal(names.size, 3);
  for (const n of names.keys()) assert.match(n, NAME);
  assert.equal(names.get("tracker_issue_tracker_put")?.method, "put");
  const gets = [...names].filter(([, t]) => t.method === "get").map(([, t]) => t.service).sort();
  assert.deepEqual(gets, ["issue-tracker", "issue_tracker"]);
});

Deno.test("apps whose id suffixes agree after lowercasing still get distinct names", async () => {
  const names = await assignToolNames([
    unit("AbCdEf1", "p.kv", ["get"]),
    unit("abcdef2", "q.kv", ["get"]),
  ]);
  assert.equal(names.size, 2);
  assert.deepEqual([...names.values()].map((t) => t.applicationId).sort(), ["AbCdEf1", "abcdef2"]);
});

Deno.test("a unit without methods still makes its slug collide", async () => {
  const names = await assignToolNames([
    unit("Aaa111", "a.kv", []),
    unit("Bbb222", "b.kv", ["get"]),
  ]);
  assert.deepEqual(flat(names), ["kv_bbb222_get -> Bbb222/-/get"]);
});

Deno.test("repeated units and methods give one name per (app, service, method)", async () => {
  const u = unit("Kv1", "com.calimero.kv-store", ["get", "get"]);
  assert.deepEqual(flat(await assignToolNames([u, u])), ["kv_store_get -> Kv1/-/get"]);
});

// Small pools so that collisions of every kind are common.
const PACKAGES = [
  null,
  "com.a.kv",
  "com.b.kv",
  "org.x.KV",
  "com.a.kv-store",
  "kv_store",
  "com.example.node",
  "call",
  "com.x.drive",
  "com.calimero.a-very-long-application-name-indeed",
  "com.calimero.a-very-long-application-name-as-well",
];
const METHODS = [
  "get",
  "set",
  "status",
  "many",
  "files_list",
  "list",
  "Get",
  "get-x",
  "get_x",
  "a".repeat(40),
];
const SERVICES = ["files", "chat", "issue-tracker", "issue_tracker", "a-service-with-a-long-name"];

const appArb = fc.record({
  id: fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{1,3}$/).map((s) => `Ab${s}Cd`),
  pkg: fc.constantFrom(...PACKAGES),
  services: fc.uniqueArray(fc.constantFrom(...SERVICES), { maxLength: 3 }),
  methods: fc.uniqueArray(fc.constantFrom(...METHODS), { minLength: 1, maxLength: 5 }),
});

const unitsArb = fc.uniqueArray(appArb, { maxLength: 8, selector: (a) => a.id }).map((apps) =>
  apps.flatMap((a): NamingUnit[] =>
    a.services.length === 0
      ? [unit(a.id, a.pkg, a.methods)]
      : a.services.map((s) => unit(a.id, a.pkg, a.methods, s, a.services.length))
  )
);

Deno.test("names do not depend on the order of units or methods", async () => {
  await fc.assert(
    fc.asyncProperty(
      unitsArb.chain((units) =>
        fc.tuple(
          fc.constant(units),
          fc.shuffledSubarray(units, { minLength: units.length, maxLength: units.length }),
          fc.array(fc.nat(), { minLength: units.length, maxLength: units.length }),
        )
      ),
      async ([units, shuffled, rotations]) => {
        const rotated = shuffled.map((u, i) => {
          const r = rotations[i] % u.methods.length;
          return { ...u, methods: [...u.methods.slice(r), ...u.methods.slice(0, r)] };
        });
        const a = await assignToolNames(units);
        const b = await assignToolNames(rotated);
        assert.deepEqual([...b], [...a]);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("every (app, service, method) gets one valid name, never a fixed tool's", async () => {
  await fc.assert(
    fc.asyncProperty(unitsArb, async (units) => {
      const names = await assignToolNames(units);
      const targets = new Set(
        units.flatMap((u) => u.methods.map((m) => JSON.stringify([u.applicationId, u.service, m]))),
      );
      assert.equal(names.size, targets.size);
      for (const [name, t] of names) {
        assert.match(name, NAME);
        assert.equal(FIXED_TOOL_NAMES.includes(name), false, name);
        assert.equal(targets.has(JSON.stringify([t.applicationId, t.service, t.method])), true);
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("any strings at all give valid names, one per target", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          applicationId: fc.string({ maxLength: 8 }),
          package: fc.option(fc.string({ maxLength: 30 }), { nil: null }),
          service: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
          serviceCount: fc.nat({ max: 3 }),
          methods: fc.array(fc.string({ maxLength: 60 }), { maxLength: 4 }),
        }),
        { maxLength: 6 },
      ),
      async (units) => {
        const names = await assignToolNames(units);
        for (const name of names.keys()) assert.match(name, NAME);
        const targets = new Set(
          units.flatMap((u) =>
            u.methods.map((m) => JSON.stringify([u.applicationId, u.service, m]))
          ),
        );
        assert.equal(names.size, targets.size);
      },
    ),
    { numRuns: 200 },
  );
});
