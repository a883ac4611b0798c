// What mero-mcp's callers rely on in each node answer, checked once at the edge: a 2xx
// payload of another shape becomes a NodeHttpError instead of a JavaScript crash or a made-up result.
// The checks read only the fields callers use, so they stay cheap (a few property reads per record).

/** The payload check of one endpoint, applied after the `{ data }` envelope is removed. */
export interface Shape {
  /** What the callers need, quoted in the error ("an object with an "apps" list …"). */
  readonly expected: string;
  /** True when the payload has that shape. */
  readonly test: (payload: unknown) => boolean;
}

type Test = (value: unknown) => boolean;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isString: Test = (value) => typeof value === "string";
const isBoolean: Test = (value) => typeof value === "boolean";
const isPresent: Test = (value) => value !== null && value !== undefined;
const optional = (test: Test): Test => (value) =>
  value === null || value === undefined || test(value);
/** `null` is the node's "nothing to return" (`{ data: null }` or an empty 2xx body). */
const orNull = (test: Test): Test => (value) => value === null || test(value);
const listOf = (item: Test): Test => (value) => Array.isArray(value) && value.every(item);
const valuesOf = (item: Test): Test => (value) =>
  isObject(value) && Object.values(value).every(item);
const fields = (spec: Record<string, Test>): Test => {
  const entries = Object.entries(spec);
  return (value) => isObject(value) && entries.every(([key, test]) => test(value[key]));
};
const shape = (expected: string, test: Test): Shape => ({ expected, test });

/** What the catalog and the app tools read of an application record (resolve.ts `appUnits`). */
const isApplication = fields({
  id: isString,
  blob: fields({ bytecode: isString }),
  services: optional(valuesOf(fields({ bytecode: isString }))),
});
const isContext = fields({ id: isString, applicationId: isString });
const isBlobInfo: Test = (value) =>
  isObject(value) && (isString(value.blob_id) || isString(value.blobId));

/**
 * The shape of every admin and JSON-RPC payload callers read. Endpoints whose answer nobody reads
 * (alias create, leave, member and settings updates) and the ABI (abi.ts validates manifests with
 * its own messages) have none. `null` is accepted where callers already treat it as "nothing":
 * deletions, health, and the lists they default to empty.
 */
export const SHAPES = {
  health: shape('an object such as {"status":"alive"}', orNull(isObject)),
  /** A group id (hex), or null: the context's group (get_context_group.rs). */
  groupIdOrNull: shape("a group id or null", orNull(isString)),
  /** core's health answer, `{data: {status}}` (crates/server/src/admin/service.rs `health_check_handler`). */
  nodeHealth: shape('{"data":{"status":"alive"}}', fields({ status: isString })),
  tokenPair: shape(
    "a token pair",
    fields({ access_token: isString, refresh_token: isString }),
  ),
  migration: shape('an object with a "rollup"', fields({ rollup: isObject })),
  resync: shape(
    'an object with "resyncStarted"',
    fields({ resyncStarted: isBoolean }),
  ),
  groupSync: shape(
    'an object with a "groupId" and a "contextCount"',
    fields({ groupId: isString, contextCount: (v) => typeof v === "number" }),
  ),
  subgroups: shape(
    'an object with a "subgroups" list of {groupId}',
    fields({ subgroups: listOf(fields({ groupId: isString })) }),
  ),
  groupEntries: shape("a list of {groupId}", orNull(listOf(fields({ groupId: isString })))),
  peers: shape('an object such as {"count":2}', fields({ count: (v) => typeof v === "number" })),
  networkStatus: shape(
    "a network status object with a local peer id",
    fields({ localPeerId: isString }),
  ),
  usage: shape(
    'an object with a "namespaces" list',
    fields({ namespaces: listOf(fields({ namespaceId: isString })) }),
  ),
  identity: shape("an identity object", isObject),
  apps: shape(
    'an object with an "apps" list of application records',
    fields({ apps: listOf(isApplication) }),
  ),
  application: shape(
    'an object with an "application" record',
    fields({ application: isApplication }),
  ),
  applicationId: shape(
    'an object with an "applicationId" string',
    fields({ applicationId: isString }),
  ),
  uninstalled: shape(
    'an object with an "applicationId" string',
    orNull(fields({ applicationId: isString })),
  ),
  contexts: shape(
    'an object with a "contexts" list of context records',
    fields({ contexts: listOf(isContext) }),
  ),
  context: shape('a context record with "id" and "applicationId" strings', isContext),
  deleted: shape('an object such as {"isDeleted":true}', orNull(fields({ isDeleted: isBoolean }))),
  memberOfContext: shape(
    'an object with "contextId" and "memberPublicKey" strings',
    fields({ contextId: isString, memberPublicKey: isString }),
  ),
  identities: shape(
    'an object with an "identities" list of strings',
    fields({ identities: listOf(isString) }),
  ),
  aliasLookup: shape(
    'an object whose "value" is a context id or null',
    fields({ value: optional(isString) }),
  ),
  aliases: shape("an object mapping aliases to context ids", orNull(valuesOf(isString))),
  namespaces: shape("a list of namespace objects", orNull(listOf(isObject))),
  namespaceId: shape('an object with a "namespaceId" string', fields({ namespaceId: isString })),
  invitation: shape('an object with an "invitation"', fields({ invitation: isPresent })),
  joinedNamespace: shape("an object with the joined namespace's ids", isObject),
  groupId: shape('an object with a "groupId" string', fields({ groupId: isString })),
  members: shape('an object with a "members" list', orNull(fields({ members: listOf(isObject) }))),
  blob: shape('an object with a "blob_id" string', isBlobInfo),
  blobs: shape(
    'an object with a "blobs" list of {"blob_id", "size"}',
    orNull(fields({ blobs: listOf(isBlobInfo) })),
  ),
  deletedBlob: shape('an object such as {"blob_id":…,"deleted":true}', orNull(isObject)),
  rpc: shape(
    'a JSON-RPC answer with a "result" object or an "error"',
    (value) => isObject(value) && (isPresent(value.error) || isObject(value.result)),
  ),
} satisfies Record<string, Shape>;
