// A seeded generator of bad MCP input lines for R2, each with what JSON-RPC 2.0 says must come back: exactly one
// response with its id, one with a null id, none, or (for ambiguous inputs) at most one. Deterministic per seed.

/** What a line must produce on stdout. */
export type Expectation =
  /** Exactly one response carrying `id`. */
  | { kind: "reply"; id: string | number }
  /** Exactly one response, with `id` or with a null id (an invalid request whose id was readable). */
  | { kind: "replyOrNull"; id: string | number }
  /** Exactly one response with a null id (a parse error, or a message that is not a request at all). */
  | { kind: "null" }
  /** Nothing (a notification, a well-formed stray response, a blank line). */
  | { kind: "none" }
  /** At most one response, with `id` or a null id (a malformed stray response: answering it is tolerated). */
  | { kind: "upToOne"; id: string | number }
  /** At most one response with a null id, and at most one per listed id (a batch: MCP has none). */
  | { kind: "batch"; ids: (string | number)[] };

/** One generated line. */
export interface FuzzLine {
  /** The category, for failure messages and the report. */
  category: string;
  line: string;
  expect: Expectation;
}

/** A small seeded PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the generator may use: a real handle to tamper with, tool names and a context alias. */
export interface FuzzContext {
  handle: string;
  tools: string[];
  alias: string;
}

/** Generates `count` lines; ids are unique across them (strings and numbers never collide in JSON). */
export function fuzzLines(seed: number, count: number, ctx: FuzzContext): FuzzLine[] {
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  let next = 1;
  const numericId = () => 10_000_000 + next++;
  const stringId = () => `fuzz-${next++}-${"x".repeat(int(3) === 0 ? 2_000 : 3)}`;
  const freshId = () => (int(2) === 0 ? numericId() : stringId());

  const ascii = (n: number) =>
    Array.from({ length: n }, () => String.fromCharCode(32 + int(95))).join("");
  const unicode = (n: number) =>
    Array.from(
      { length: n },
      () => pick(["é", "漢", "😀", "\u0000", "\u2028", "\ufeff", "\ud800", "a", '"', "\\"]),
    )
      .join("");
  const randomString = () => pick([ascii(int(20)), unicode(int(20)), "", "x".repeat(int(5_000))]);

  /** A random JSON value of bounded size and depth. */
  const value = (depth = 0): unknown => {
    const kinds = depth > 3 ? 6 : 8;
    switch (int(kinds)) {
      case 0:
        return null;
      case 1:
        return rand() < 0.5;
      case 2:
        return pick([0, -1, 1.5, 2 ** 53 + 1, -(2 ** 63), 1e308, Number.MIN_VALUE]);
      case 3:
        return randomString();
      case 4:
        return int(1_000);
      case 5:
        return pick(["__proto__", "constructor", "prototype", "toString"]);
      case 6:
        return Array.from({ length: int(4) }, () => value(depth + 1));
      default: {
        const object: Record<string, unknown> = {};
        for (let i = int(4); i > 0; i--) {
          Object.defineProperty(object, pick(["a", "key", "value", "__proto__", ascii(6)]), {
            value: value(depth + 1),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return object;
      }
    }
  };

  const nested = (depth: number) =>
    int(2) === 0
      ? "[".repeat(depth) + "]".repeat(depth)
      : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

  /** Tampered, truncated or invented handles. */
  const forgedHandle = (): unknown => {
    const h = ctx.handle;
    const [body, mac] = h.split(".");
    switch (int(10)) {
      case 0: {
        const i = int(h.length);
        const swap = h[i] === "A" ? "B" : "A";
        return h.slice(0, i) + swap + h.slice(i + 1);
      }
      case 1:
        return h.slice(0, int(h.length));
      case 2:
        return `${body}.${mac.split("").reverse().join("")}`;
      case 3:
        return `${
          btoa('{"a":"x","p":"x","v":"","g":"","c":null,"s":null}').replace(/=+$/, "")
        }.${mac}`;
      case 4:
        return h + "." + mac;
      case 5:
        return "A".repeat(9_000) + "." + mac;
      case 6:
        return `${body}.`;
      case 7:
        return h.toUpperCase();
      case 8:
        return value();
      default:
        return `${body}=.${mac}==`;
    }
  };

  const toolArgs = (): unknown => {
    switch (int(9)) {
      case 0:
        return value();
      case 1:
        return { app_handle: forgedHandle(), key: randomString(), value: randomString() };
      case 2:
        return {
          app_handle: forgedHandle(),
          method: pick(["get", "set", "init", "", "__proto__"]),
          args: value(),
        };
      case 3:
        return {
          app: pick(["kv-store", "", "nope", ascii(40), "com.calimero.kv-store"]),
          context: ctx.alias,
          method: "get",
          args: { key: value() },
        };
      case 4:
        return {
          calls: Array.from(
            { length: int(40) },
            () => ({ app_handle: forgedHandle(), method: "get" }),
          ),
        };
      case 5:
        return { app: "kv-store", context: pick([ctx.alias, randomString(), "1".repeat(44)]) };
      case 6:
        return int(3) === 0 ? { key: "x".repeat(1_000_000 + int(1_000_000)) } : { key: ascii(200) };
      case 7:
        return JSON.parse(nested(100 + int(1_500)));
      default:
        return { app_handle: ctx.handle, key: value(), value: value(), extra: value() };
    }
  };

  const request = (method: string, params?: unknown, id: string | number = freshId()) => ({
    line: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      ...(params === undefined ? {} : { params }),
    }),
    id,
  });

  const generators: [number, () => FuzzLine][] = [
    [8, () => {
      const text = pick([
        "{",
        "}",
        '{"jsonrpc":"2.0","id":1,',
        "not json at all",
        ascii(1 + int(60)),
        unicode(1 + int(30)),
        '{"jsonrpc":"2.0","id":1,"method":"ping"}}',
        "{'jsonrpc':'2.0'}",
        "[1,2",
        '"unterminated',
        "NaN",
        "01",
        "{}{}",
      ]);
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      if (text.trim() === "" || text.replace(/\r$/, "").trim() === "") {
        return { category: "blank", line: text, expect: { kind: "none" } };
      }
      if (parses) {
        const parsed = JSON.parse(text);
        const isNotification = typeof parsed === "object" && parsed !== null &&
          !Array.isArray(parsed) &&
          "method" in parsed && !("id" in parsed);
        return {
          category: "stray JSON",
          line: text,
          expect: isNotification ? { kind: "none" } : { kind: "null" },
        };
      }
      return { category: "invalid JSON", line: text, expect: { kind: "null" } };
    }],
    [4, () => ({
      category: "JSON that is not an object",
      line: JSON.stringify(pick([1, -3.5, "text", true, false, null, [], [1, "a"], {}, { a: 1 }])),
      expect: { kind: "null" },
    })],
    [3, () => {
      const ids = [freshId(), freshId()];
      const items = ids.map((id) => ({ jsonrpc: "2.0", id, method: pick(["ping", "tools/list"]) }));
      return { category: "batch", line: JSON.stringify(items), expect: { kind: "batch", ids } };
    }],
    [6, () => {
      const id = freshId();
      const broken = pick<Record<string, unknown>>([
        { id, method: "ping" },
        { jsonrpc: "1.0", id, method: "ping" },
        { jsonrpc: 2, id, method: "ping" },
        { jsonrpc: "2.0", id, method: 42 },
        { jsonrpc: "2.0", id, method: null },
        { jsonrpc: "2.0", id },
        { jsonrpc: "2.0", id, method: "tools/list", params: "text" },
        { jsonrpc: "2.0", id, method: "tools/list", params: [1, 2] },
      ]);
      return {
        category: "invalid request with an id",
        line: JSON.stringify(broken),
        expect: { kind: "replyOrNull", id },
      };
    }],
    [3, () => ({
      category: "request with an unusable id",
      line: JSON.stringify({
        jsonrpc: "2.0",
        id: pick([{ a: 1 }, [1], true, 1.5e300 * 1e10 || null]),
        method: "ping",
      }),
      expect: { kind: "null" },
    })],
    [6, () => {
      const r = request(
        pick([
          "no/such/method",
          "tools/frobnicate",
          "",
          "x".repeat(300),
          "rpc.discover",
          "__proto__",
        ]),
      );
      return { category: "unknown method", line: r.line, expect: { kind: "reply", id: r.id } };
    }],
    [8, () => {
      const r = pick([
        () => request("tools/call", { name: value(), arguments: value() }),
        () => request("tools/call", { name: pick(ctx.tools) }),
        () =>
          request("tools/call", { name: pick(ctx.tools), arguments: pick([[1], "a", 5, null]) }),
        () => request("tools/list", { cursor: value() }),
        () => request("resources/read", { uri: value() }),
        () => request("resources/templates/list", value()),
        () => request("initialize", value()),
        () => request("ping", value()),
        () => request("logging/setLevel", { level: value() }),
        () => request("completion/complete", value()),
        () => request("prompts/list", {}),
      ])();
      return {
        category: "known method, wrong params",
        line: r.line,
        expect: { kind: "reply", id: r.id },
      };
    }],
    [5, () => {
      const r = request("tools/call", {
        name: `${pick(["kv_store_", "", "call_", "select"])}${ascii(int(12))}`,
        arguments: {},
      });
      return { category: "unknown tool", line: r.line, expect: { kind: "reply", id: r.id } };
    }],
    [20, () => {
      const r = request("tools/call", { name: pick(ctx.tools), arguments: toolArgs() });
      return {
        category: "known tool, fuzzed arguments",
        line: r.line,
        expect: { kind: "reply", id: r.id },
      };
    }],
    [2, () => {
      const id = freshId();
      const line = `{"jsonrpc":"2.0","id":${
        JSON.stringify(id)
      },"method":"tools/call","params":{"name":"call","arguments":${
        nested(10_000 + int(90_000))
      }}}`;
      return { category: "deeply nested arguments", line, expect: { kind: "reply", id } };
    }],
    [6, () => {
      const notification = pick<Record<string, unknown>>([
        {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: "never-sent", reason: value() },
        },
        { jsonrpc: "2.0", method: "notifications/progress", params: value() },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
        { jsonrpc: "2.0", method: "no/such/notification", params: value() },
        { jsonrpc: "2.0", method: "tools/call", params: { name: "call", arguments: toolArgs() } },
      ]);
      return {
        category: "notification",
        line: JSON.stringify(notification),
        expect: { kind: "none" },
      };
    }],
    [3, () => {
      const id = freshId();
      const well = rand() < 0.5;
      const message = well
        ? pick([
          { jsonrpc: "2.0", id, result: {} },
          { jsonrpc: "2.0", id, error: { code: -1, message: "x" } },
        ])
        : { jsonrpc: "2.0", id, result: value(), error: value() };
      return {
        category: well ? "stray response" : "malformed stray response",
        line: JSON.stringify(message),
        expect: well ? { kind: "none" } : { kind: "upToOne", id },
      };
    }],
    [1, () => ({ category: "blank", line: pick(["", " ", "\t", "\r"]), expect: { kind: "none" } })],
  ];
  const total = generators.reduce((sum, [weight]) => sum + weight, 0);
  const lines: FuzzLine[] = [];
  while (lines.length < count) {
    let roll = int(total);
    for (const [weight, make] of generators) {
      roll -= weight;
      if (roll < 0) {
        lines.push(make());
        break;
      }
    }
  }
  return lines;
}
