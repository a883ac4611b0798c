// Names of the generated tools: stable, `[a-z0-9_]`, at most 49 characters, and a
// function of the SET of installed units, never of their order. Callers keep the returned map; names are
// never parsed back. Async only because sha256 comes from Web Crypto.

/** The app tools (always on): what every count of tools calls "app tools". */
export const APP_TOOL_NAMES: readonly string[] = Object.freeze([
  "find_methods",
  "describe_app",
  "select_app",
  "call",
  "call_many",
  "wait_for_events",
  "run_script",
]);

/** Every fixed tool (the node's, then the app tools), reserved against generated names whatever the toolsets. */
export const FIXED_TOOL_NAMES: readonly string[] = Object.freeze([
  // core
  "node_status",
  "list_nodes",
  "create_client_key",
  "list_applications",
  "list_namespaces",
  "list_contexts",
  "create_context",
  "join_context",
  "leave_context",
  "list_context_identities",
  "sync_context",
  "resync_context",
  "update_context_application",
  "delete_context",
  "create_alias",
  "lookup_alias",
  "list_aliases",
  "delete_alias",
  // blobs
  "install_application",
  "uninstall_application",
  "upload_blob",
  "list_blobs",
  "delete_blob",
  // governance
  "create_namespace",
  "delete_namespace",
  "invite_to_namespace",
  "join_namespace",
  "leave_namespace",
  "list_group_members",
  "add_group_members",
  "remove_group_members",
  "set_member_role",
  "set_member_capabilities",
  "create_group",
  "set_group_visibility",
  "set_group_metadata",
  "set_default_capabilities",
  "set_auto_follow",
  "join_open_group",
  "describe_group",
  "sync_group",
  "upgrade_group",
  "group_upgrade_status",
  "delete_group",
  "leave_group",
  "detach_context",
  ...APP_TOOL_NAMES,
]);

const FIXED = new Set(FIXED_TOOL_NAMES);

/** The longest generated name: 64 minus the `mcp__mero-mcp__` prefix a common client adds. */
export const MAX_TOOL_NAME_LENGTH = 49;

/** One catalog unit as naming sees it: an (application, service) pair and the methods that get tools. */
export type NamingUnit = {
  applicationId: string;
  /** the package name, or null when the app has none (its metadata name, else its id, is used instead) */
  package: string | null;
  /** for an app without a package: the name its metadata gives it (a raw .wasm install named by its installer) */
  name?: string | null;
  /** this unit's service, or null for an app without services */
  service: string | null;
  /** how many services the app has (0 for none): 2 or more puts the service in the slug */
  serviceCount: number;
  /** the methods to name; the caller has already left out `init` and methods with their own `app_handle` */
  methods: string[];
};

/** What a generated tool runs: the method of one unit. */
export type ToolTarget = { applicationId: string; service: string | null; method: string };

/** Lowercase, and every run of characters outside `[a-z0-9_]` becomes one `_` (rule 1). */
export function sanitize(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9_]+/g, "_");
}

/**
 * Assigns every (unit, method) a tool name — its app's slug and the method; an application-id suffix where a slug
 * is shared by several applications; a hash tag, longer each round, while names still clash or meet a fixed
 * tool's — returned as name → target, in name order. The result depends only on the set of units: the same units in any order give the same map.
 * Beyond the spec (cases it leaves open, such as two services of one app sanitising alike, or suffixed
 * names that still clash): a name that stays ambiguous gets a sha256 tag of its own (id, service, method).
 */
export async function assignToolNames(units: NamingUnit[]): Promise<Map<string, ToolTarget>> {
  // Rule 3: a slug shared by units of different applications suffixes every member of the group.
  const appsBySlug = new Map<string, Set<string>>();
  for (const unit of units) {
    const slug = baseSlug(unit);
    appsBySlug.set(slug, (appsBySlug.get(slug) ?? new Set()).add(unit.applicationId));
  }
  const entries = await collectEntries(units);
  for (const e of entries) if (appsBySlug.get(e.slug)!.size > 1) e.level = 1;

  // Rule 5, repeated until stable: clashing names move up a level. Each round depends only on the set.
  while (true) {
    const names = await Promise.all(entries.map(nameAtLevel));
    const groups = new Map<string, number[]>();
    names.forEach((name, i) => {
      const group = groups.get(name);
      if (group) group.push(i); // not a copy per member: 40,000 clashing names stay linear
      else groups.set(name, [i]);
    });
    let changed = false;
    for (const [name, members] of groups) {
      if (members.length === 1 && !FIXED.has(name)) continue;
      const unsuffixed = members.filter((i) => entries[i].level === 0);
      const raise = unsuffixed.length > 0 ? unsuffixed : members;
      for (const i of raise) {
        if (entries[i].level >= LAST_LEVEL) {
          throw new Error(
            `Cannot give the tool name "${name}" a unique form; rename the app's method.`,
          );
        }
        entries[i].level++;
        changed = true;
      }
    }
    if (!changed) {
      const byName = names.map((name, i) => [name, entries[i].target] as const);
      byName.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
      return new Map(byName);
    }
  }
}

type Entry = {
  target: ToolTarget;
  slug: string;
  idSuffix: string;
  /** 0: plain slug; 1: slug + id suffix; 2 and up: tagged with a hash of the target (see HASH_LENGTHS) */
  level: number;
};

/** Hex digits of the target's hash at levels 2, 3, 4. */
const HASH_LENGTHS = [12, 24, 48];
const LAST_LEVEL = 1 + HASH_LENGTHS.length;

/** One entry per distinct (application, service, method); a duplicate keeps the smallest slug. */
async function collectEntries(units: NamingUnit[]): Promise<Entry[]> {
  const byKey = new Map<string, Entry>();
  for (const unit of units) {
    const slug = baseSlug(unit);
    const idSuffix = await applicationSuffix(unit.applicationId);
    for (const method of unit.methods) {
      const target = { applicationId: unit.applicationId, service: unit.service, method };
      const key = targetKey(target);
      const seen = byKey.get(key);
      if (seen === undefined || slug < seen.slug) {
        byKey.set(key, { target, slug, idSuffix, level: 0 });
      }
    }
  }
  return [...byKey.values()];
}

/**
 * Rule 2: the unit's slug before any collision suffix, and the text it was cut from (`uncut`, equal to `slug`
 * when nothing was cut), so `check` can say when a long package or service name is shortened.
 */
export function unitSlug(unit: NamingUnit): { slug: string; uncut: string } {
  const source = unit.package
    ? unit.package.slice(unit.package.lastIndexOf(".") + 1)
    : unit.name ?? "";
  const segment = sanitize(source) || sanitize(unit.applicationId) || "app";
  if (unit.serviceCount >= 2 && unit.service !== null) {
    const service = sanitize(unit.service);
    return {
      slug: `${segment.slice(0, 12)}_${service.slice(0, 16)}`,
      uncut: `${segment}_${service}`,
    };
  }
  return { slug: segment.slice(0, 20), uncut: segment };
}

function baseSlug(unit: NamingUnit): string {
  return unitSlug(unit).slug;
}

/** `_` + the first 6 alphanumerics of the id, lowercased (hex of its hash if it has none). */
async function applicationSuffix(applicationId: string): Promise<string> {
  const alnum = applicationId.replace(/[^A-Za-z0-9]/g, "").slice(0, 6).toLowerCase();
  return `_${alnum || (await sha256Hex(applicationId)).slice(0, 6)}`;
}

/** Rule 4 on the entry's slug at its level, or the hash-tagged form above level 1. */
async function nameAtLevel(e: Entry): Promise<string> {
  const slug = e.level === 0 ? e.slug : e.slug + e.idSuffix;
  if (e.level <= 1) return await joinName(slug, e.target.method);
  const hexLength = HASH_LENGTHS[e.level - 2];
  const tag = (await sha256Hex(targetKey(e.target))).slice(0, hexLength);
  const full = `${slug}_${sanitize(e.target.method)}`;
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - 1 - hexLength)}_${tag}`;
}

/** Rule 4: `<slug>_<method>`; over 49 characters → the first 42 + `_` + 6 hex of sha256(full name). */
async function joinName(slug: string, method: string): Promise<string> {
  const full = `${slug}_${sanitize(method)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  return `${full.slice(0, 42)}_${(await sha256Hex(full)).slice(0, 6)}`;
}

function targetKey(t: ToolTarget): string {
  return JSON.stringify([t.applicationId, t.service, t.method]);
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(digest).toHex();
}
