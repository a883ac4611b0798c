import assert from "assert";
import {
  describeError,
  describeGuestError,
  isAppGoneError,
  isAuthError,
  isNoIdentityError,
  redactText,
  redactUrl,
} from "./errors.ts";
import { NodeHttpError, NodeRpcError } from "../mero/mod.ts";

const bytesOf = (text: string) => [...new TextEncoder().encode(text)].join(", ");
const guest = (json: string) => `the method call returned an error: [${bytesOf(json)}]`;
const rpc = (type: string, data?: unknown) => new NodeRpcError(type, data, "m");
const http = (
  status: number,
  extra: Partial<ConstructorParameters<typeof NodeHttpError>[0]> = {},
) =>
  new NodeHttpError({
    status,
    method: "GET",
    url: "http://u:pw@h:1/node1/admin-api/applications/x/abi?token=abc",
    path: "/admin-api/applications/x/abi",
    ...extra,
  });
const refused = new TypeError("fetch failed", {
  cause: new Error(
    "error sending request for url (http://h:1/x?token=abc): client error (Connect): tcp connect error: Connection refused (os error 111)",
  ),
});

const table: Array<[string, unknown, string | RegExp]> = [
  // guest errors
  [
    "a guest error that is a JSON string shows unquoted",
    rpc(
      "FunctionCallError",
      "the method call returned an error: [34,107,101,121,32,110,111,116,32,102,111,117,110,100,34]",
    ),
    "key not found",
  ],
  [
    "a guest error that is a JSON object shows as compact JSON",
    rpc("FunctionCallError", guest('{ "kind": "NotFound", "data": "k" }')),
    '{"kind":"NotFound","data":"k"}',
  ],
  ["a UTF-8 guest error decodes", rpc("FunctionCallError", guest('"clé absente"')), "clé absente"],
  [
    "a guest error with big integers keeps them",
    rpc("FunctionCallError", guest('{"max":18446744073709551615}')),
    '{"max":18446744073709551615}',
  ],
  [
    "a panic string shows as is",
    rpc("FunctionCallError", "guest panicked: index out of bounds at src/lib.rs:10:5"),
    "guest panicked: index out of bounds at src/lib.rs:10:5",
  ],
  ["a guest error without data says so", rpc("FunctionCallError"), /failed without a message/],
  [
    "an empty guest byte list says there was no message",
    rpc("FunctionCallError", guest("")),
    /failed without a message/,
  ],
  // the node's own refusals that arrive as FunctionCallError (core crates/server/src/execute.rs)
  [
    "no owned identity in the context",
    rpc("FunctionCallError", "No owned identity found for this context"),
    /no identity of its own in the context.*not joined.*join_context/,
  ],
  [
    "a key-bound token of a non-member",
    rpc("FunctionCallError", "Caller is not a member of this context"),
    /token.*not a member of this context.*member/,
  ],
  // other rpc types
  ["ContextNotFound", rpc("ContextNotFound"), /does not know the context.*ContextNotFound.*join/],
  ["Uninitialized", rpc("Uninitialized"), /not synced.*Uninitialized.*Retry/],
  ["ApplicationNotInstalled", rpc("ApplicationNotInstalled"), /not installed.*Install/],
  ["Unauthorized", rpc("Unauthorized"), /no identity.*Unauthorized.*Join/],
  ["GroupKeyPending", rpc("GroupKeyPending"), /key.*GroupKeyPending.*Retry/],
  ["UpgradeInProgress", rpc("UpgradeInProgress"), /upgraded.*UpgradeInProgress.*Retry/],
  [
    "InternalError with a kind",
    rpc("InternalError", { kind: "Storage" }),
    /\(InternalError: Storage\)/,
  ],
  ["ParseError with data", rpc("ParseError", "expected value"), /\(ParseError: expected value\)/],
  [
    "SerdeError shows data.message",
    rpc("SerdeError", { message: "missing field `key`" }),
    /\(SerdeError: missing field `key`\)\. Check the argument names/,
  ],
  ["an unknown type with data", rpc("Weird", { a: 1 }), 'Weird: {"a":1}'],
  ["an unknown type without data", rpc("Weird"), /"Weird"/],
  // http bodies
  [
    "a JSON error body gives its message",
    http(404, { body: '{"error":"Application not found"}' }),
    "Application not found",
  ],
  [
    "a plain-text body gives its first 300 characters",
    http(500, { body: "x".repeat(400) }),
    "x".repeat(300),
  ],
  [
    "no body names the method and endpoint",
    http(404),
    /HTTP 404 to GET \/admin-api\/applications\/x\/abi with no body.*older node/,
  ],
  ["no body on a 500 names the endpoint", http(500, { method: "DELETE" }), /HTTP 500 to DELETE/],
  ["a 503 says to retry", http(503, { body: '{"error":"not ready"}' }), /not ready.*503.*retry/],
  [
    "a 504 (newer core: no peer of the namespace answered a join) says who must be online",
    http(504, { body: '{"error":"join not endorsed"}' }),
    /join not endorsed.*504.*no peer answered.*other nodes are online/,
  ],
  [
    "a typed refusal's Debug-printed ids become the ids the tools show",
    http(403, {
      body: JSON.stringify({
        error: `identity PublicKey(Hash("${
          "2".repeat(44)
        }")) is not an admin of group ContextGroupId(Identity([${
          Array(32).fill(171).join(", ")
        }]))`,
      }),
    }),
    new RegExp(`^identity ${"2".repeat(44)} is not an admin of group ${"ab".repeat(32)}$`),
  ],
  [
    "a JSON body without error is compacted",
    http(400, { body: '{ "services": ["a", "b"] }' }),
    '{"services":["a","b"]}',
  ],
  // transport
  [
    "status 0 names the origin and the cause, no URL secrets",
    http(0, { cause: refused }),
    /^cannot reach the node at http:\/\/h:1: client error \(Connect\): tcp connect error: Connection refused \(os error 111\)\. Check that the node is running/,
  ],
  [
    "a timeout says how to raise it",
    http(0, { cause: new Error("timed out after 10000 ms"), timedOut: true }),
    /cannot reach the node at http:\/\/h:1: timed out after 10000 ms\..*CALIMERO_NODE_TIMEOUT_MS/,
  ],
  [
    "an operation's own limit (join_context's 40 s) is not advised to be raised through the setting",
    http(0, { cause: new Error("timed out after 40000 ms"), timedOut: true, ownTimeoutMs: 40_000 }),
    /own limit of 40 s \(CALIMERO_NODE_TIMEOUT_MS does not govern it\); retry/,
  ],
  // auth
  [
    "a bare 401 names every way to authenticate",
    http(401),
    /requires authentication.*CALIMERO_AUTH_TOKEN.*CALIMERO_USERNAME and CALIMERO_PASSWORD.*connect AI agent/,
  ],
  [
    "403 permission_denied",
    http(403, { authError: "permission_denied" }),
    /lacks the permission to call GET \/admin-api/,
  ],
  [
    "403 invalid_node",
    http(403, { authError: "invalid_node" }),
    /another node address, not http:\/\/h:1/,
  ],
  [
    "429 with Retry-After",
    http(429, { retryAfter: 30 }),
    /Too many failed login attempts.*retry after 30 seconds/,
  ],
  ["429 without Retry-After", http(429), /retry later/],
  [
    "401 token_reuse",
    http(401, { authError: "token_reuse" }),
    /already used by another client \(token_reuse\): this copy is spent.*handoff.*revoked the whole family.*Authenticate again/,
  ],
  [
    "403 token_revoked",
    http(403, { authError: "token_revoked" }),
    /token_revoked.*authenticate again/,
  ],
  [
    "401 token_expired after a failed refresh",
    http(401, { authError: "token_expired" }),
    /expired.*Authenticate again/,
  ],
  [
    "a rejected login",
    http(401, { method: "POST", path: "/auth/token", body: '{"error":"Invalid credentials"}' }),
    /rejected the login: Invalid credentials\. Check CALIMERO_USERNAME/,
  ],
  [
    "a 403 without auth header gives the body",
    http(403, { body: '{"error":"blob is in use"}' }),
    "blob is in use",
  ],
  // answers that arrived but cannot be used: the client's own message, as is
  [
    "a 2xx payload of the wrong shape names the endpoint, what was expected and the body",
    http(200, { body: '{"data":"xxx"}', expected: 'an object with an "apps" list' }),
    'GET /admin-api/applications/x/abi: the node answered HTTP 200 with an unexpected body (expected an object with an "apps" list). Check that http://h:1 is a Calimero node of a version mero-mcp supports. Body: {"data":"xxx"}',
  ],
  [
    "an error answer too large to read names the cap, not a missing body",
    http(500, { sizeLimit: 16 * 1024 * 1024 }),
    "the node's answer to GET /admin-api/applications/x/abi is larger than 16 MiB; mero-mcp stops reading there. An answer this large is not expected: check that http://h:1 is the Calimero node you meant.",
  ],
  // anything else
  ["a plain Error", new Error("boom"), "boom"],
  ["a string", "just text", "just text"],
  ["an object", { n: 2n ** 64n }, '{"n":18446744073709551616}'],
];

for (const [name, error, expected] of table) {
  Deno.test(`describeError: ${name}`, () => {
    const message = describeError(error);
    if (typeof expected === "string") assert.equal(message, expected);
    else assert.match(message, expected);
  });
}

Deno.test("no message ever shows a URL's userinfo or query string", () => {
  const secretUrl = "http://u:pw@h:1/x?token=abc";
  const errors: unknown[] = [
    new Error(`failed to download ${secretUrl}`),
    http(500, { body: `could not fetch ${secretUrl}` }),
    http(0, {
      url: secretUrl,
      cause: new Error(`error sending request for url (${secretUrl}): boom`),
    }),
    http(401, { url: secretUrl }),
    http(403, { url: secretUrl, authError: "invalid_node" }),
    rpc("ParseError", secretUrl),
    secretUrl,
  ];
  for (const error of errors) {
    const message = describeError(error);
    assert.ok(!message.includes("pw") && !message.includes("abc"), message);
  }
  assert.equal(redactUrl(secretUrl), "http://h:1/x");
});

Deno.test("redaction keeps the text around a URL and trailing punctuation", () => {
  assert.equal(
    redactText("see (http://u:pw@h:1/x?token=abc): refused"),
    "see (http://h:1/x): refused",
  );
  assert.equal(redactUrl("https://h/p#frag"), "https://h/p");
  assert.equal(redactUrl("not a url?x=1"), "not a url");
  assert.equal(redactUrl("http://h:1/node1"), "http://h:1/node1");
});

Deno.test("describeGuestError leaves a byte list that is not UTF-8 JSON readable", () => {
  assert.equal(describeGuestError("the method call returned an error: [104, 105]"), "hi");
  assert.equal(
    describeGuestError("the method call returned an error: [999]"),
    "the method call returned an error: [999]",
  );
});

Deno.test("predicates classify app-gone, retryable and auth errors", () => {
  assert.ok(isAppGoneError(rpc("ApplicationNotInstalled")));
  assert.ok(isAppGoneError(rpc("ContextNotFound")));
  assert.ok(!isAppGoneError(rpc("Uninitialized")));
  assert.ok(
    isNoIdentityError(rpc("FunctionCallError", "No owned identity found for this context")),
  );
  assert.ok(!isNoIdentityError(rpc("FunctionCallError", guest('"No owned identity"'))));
  assert.ok(!isAppGoneError(http(404)));
  assert.ok(isAuthError(http(401)));
  assert.ok(isAuthError(http(403, { authError: "permission_denied" })));
  assert.ok(!isAuthError(http(403)));
  assert.ok(!isAuthError(new Error("x")));
});
